import { randomBytes } from 'node:crypto';
import type { WebhooksTable } from '../../db/types.js';
import { ERR } from '../../shared/errors.js';
import {
  type CreateWebhookBody,
  type DeliveriesOut,
  type DeliveryOut,
  type UpdateWebhookBody,
  WEBHOOK_LIMITS,
  type WebhookOut,
  type WebhookPayload,
  type WebhookWithSecretOut,
} from '../../shared/webhooks.js';
import { projectAccess } from '../access.js';
import { audit } from '../audit.js';
import { type Ctx, type Tx, transact } from '../context.js';
import { conflict, invalidField, notFound } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { presentDelivery, presentWebhook } from '../presenters/webhooks.js';
import { newDelivery } from './queue.js';
import { checkTarget, RefusedTarget } from './targets.js';

/**
 * Webhooks of a project (docs/webhooks.md): project admins and owners (and system administrators)
 * list, create, change and delete them, read their deliveries and send one again. Others get the
 * project's 404 or a 403 (src/domain/access.ts).
 */

async function allowedTarget(ctx: Ctx, url: string) {
  try {
    await checkTarget(url, ctx.config.webhookAllowPrivate);
  } catch (err) {
    if (err instanceof RefusedTarget) throw invalidField('url', ERR.webhookTargetRefused);
    throw err;
  }
}

async function hookIn(tx: Tx, projectId: string, webhookId: string): Promise<WebhooksTable> {
  const row = await tx
    .selectFrom('webhooks')
    .selectAll()
    .where('id', '=', webhookId.toLowerCase())
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  if (!row) throw notFound(ERR.webhookNotFound);
  return row;
}

export async function listWebhooks(ctx: Ctx, projectRef: string): Promise<WebhookOut[]> {
  const { project } = await projectAccess(ctx, ctx.db.kysely, projectRef, 'admin');
  const rows = await ctx.db.kysely
    .selectFrom('webhooks')
    .selectAll()
    .where('project_id', '=', project.id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(presentWebhook);
}

export async function getWebhook(ctx: Ctx, projectRef: string, webhookId: string): Promise<WebhookOut> {
  const { project } = await projectAccess(ctx, ctx.db.kysely, projectRef, 'admin');
  return presentWebhook(await hookIn(ctx.db.kysely, project.id, webhookId));
}

export async function createWebhook(
  ctx: Ctx,
  projectRef: string,
  body: CreateWebhookBody,
): Promise<WebhookWithSecretOut> {
  await projectAccess(ctx, ctx.db.kysely, projectRef, 'admin');
  await allowedTarget(ctx, body.url);
  const secret = body.secret ?? randomBytes(24).toString('base64url');
  return transact(ctx, async (tx) => {
    const { project, actor } = await projectAccess(ctx, tx, projectRef, 'admin');
    const { count } = await tx
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('project_id', '=', project.id)
      .executeTakeFirstOrThrow();
    if (Number(count) >= WEBHOOK_LIMITS.hooksPerProject) throw conflict(ERR.webhookLimit);
    const now = nowIso();
    const row: WebhooksTable = {
      id: newId(),
      project_id: project.id,
      url: body.url,
      secret,
      events: JSON.stringify(body.events),
      active: body.active ? 1 : 0,
      created_by: actor.userId,
      failing_since: null,
      disabled_reason: null,
      created_at: now,
      updated_at: now,
    };
    await tx.insertInto('webhooks').values(row).execute();
    await audit(tx, ctx, {
      action: 'webhook.created',
      target: { type: 'webhook', id: row.id },
      details: { projectId: project.id, url: row.url },
    });
    return { ...presentWebhook(row), secret };
  });
}

export async function updateWebhook(
  ctx: Ctx,
  projectRef: string,
  webhookId: string,
  body: UpdateWebhookBody,
): Promise<WebhookOut> {
  await projectAccess(ctx, ctx.db.kysely, projectRef, 'admin');
  if (body.url !== undefined) await allowedTarget(ctx, body.url);
  return transact(ctx, async (tx) => {
    const { project } = await projectAccess(ctx, tx, projectRef, 'admin');
    const before = await hookIn(tx, project.id, webhookId);
    const set: Partial<WebhooksTable> = { updated_at: nowIso() };
    if (body.url !== undefined) set.url = body.url;
    if (body.secret !== undefined) set.secret = body.secret;
    if (body.events !== undefined) set.events = JSON.stringify(body.events);
    if (body.active !== undefined) {
      set.active = body.active ? 1 : 0;
      // Turned on again: its failure is forgiven and the day of retries starts afresh.
      if (body.active) Object.assign(set, { failing_since: null, disabled_reason: null });
    }
    await tx.updateTable('webhooks').set(set).where('id', '=', before.id).execute();
    await audit(tx, ctx, {
      action: 'webhook.updated',
      target: { type: 'webhook', id: before.id },
      details: {
        projectId: project.id,
        changed: Object.keys(body).filter((k) => k !== 'secret' || body.secret !== undefined),
      },
    });
    return presentWebhook({ ...before, ...set });
  });
}

export async function deleteWebhook(ctx: Ctx, projectRef: string, webhookId: string) {
  await transact(ctx, async (tx) => {
    const { project } = await projectAccess(ctx, tx, projectRef, 'admin');
    const hook = await hookIn(tx, project.id, webhookId);
    await tx.deleteFrom('webhooks').where('id', '=', hook.id).execute();
    await audit(tx, ctx, {
      action: 'webhook.deleted',
      target: { type: 'webhook', id: hook.id },
      details: { projectId: project.id, url: hook.url },
    });
  });
  return { success: true as const };
}

/** A hook's deliveries, newest first. */
export async function listDeliveries(
  ctx: Ctx,
  projectRef: string,
  webhookId: string,
  q: { limit: number; offset?: number },
): Promise<DeliveriesOut> {
  const db = ctx.db.kysely;
  const { project } = await projectAccess(ctx, db, projectRef, 'admin');
  const hook = await hookIn(db, project.id, webhookId);
  const [rows, total] = await Promise.all([
    db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('hook_id', '=', hook.id)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(q.limit)
      .offset(q.offset ?? 0)
      .execute(),
    db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('hook_id', '=', hook.id)
      .executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(presentDelivery), total: Number(total.n) };
}

/**
 * Sends a delivery again: a new delivery (its own id) with the same event and record, queued now.
 * The body is the original's, with the new delivery id.
 */
export async function redeliver(
  ctx: Ctx,
  projectRef: string,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryOut> {
  return transact(ctx, async (tx) => {
    const { project } = await projectAccess(ctx, tx, projectRef, 'admin');
    const hook = await hookIn(tx, project.id, webhookId);
    const original = await tx
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', deliveryId.toLowerCase())
      .where('hook_id', '=', hook.id)
      .executeTakeFirst();
    if (!original) throw notFound(ERR.deliveryNotFound);
    const id = newId();
    const payload = { ...(JSON.parse(original.body) as WebhookPayload), deliveryId: id };
    const row = newDelivery({
      id,
      hook_id: original.hook_id,
      project_id: original.project_id,
      seq: original.seq,
      event_type: original.event_type,
      order_key: original.order_key,
      body: JSON.stringify(payload),
      redelivery_of: original.id,
    });
    await tx.insertInto('webhook_deliveries').values(row).execute();
    return presentDelivery(row);
  });
}
