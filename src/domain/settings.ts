import type { z } from 'zod';
import type { SystemSettingsTable } from '../db/types.js';
import { defaultSettings, type SystemSettings, type settingsPatchBody } from '../shared/accounts.js';
import { ERR } from '../shared/errors.js';
import { BLOCKED_TYPES } from '../shared/limits.js';
import { audit } from './audit.js';
import type { Ctx, Services, Tx } from './context.js';
import { badRequest, invalidField } from './errors.js';
import { nowIso } from './ids.js';
import { presentSettings } from './presenters/settings.js';

export const SETTINGS_ID = 'system';

export function defaultSettingsRow(): SystemSettingsTable {
  const d = defaultSettings();
  return {
    id: SETTINGS_ID,
    max_image_size: d.maxImageSize,
    max_video_size: d.maxVideoSize,
    max_document_size: d.maxDocumentSize,
    max_attachments_per_ticket: d.maxAttachmentsPerTicket,
    allowed_image_types: JSON.stringify(d.allowedImageTypes),
    allowed_video_types: JSON.stringify(d.allowedVideoTypes),
    allowed_document_types: JSON.stringify(d.allowedDocumentTypes),
    updated_at: nowIso(),
    require_two_factor: 0,
  };
}

/** Creates the settings row when missing (start-up, after a wipe). */
export async function ensureSettings(db: Tx): Promise<void> {
  const row = await db
    .selectFrom('system_settings')
    .select('id')
    .where('id', '=', SETTINGS_ID)
    .executeTakeFirst();
  if (!row) {
    await db
      .insertInto('system_settings')
      .values(defaultSettingsRow())
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }
}

export async function getSettings(s: Services | Ctx): Promise<SystemSettings> {
  const row = await s.db.kysely
    .selectFrom('system_settings')
    .selectAll()
    .where('id', '=', SETTINGS_ID)
    .executeTakeFirst();
  if (row) return presentSettings(row);
  return { id: SETTINGS_ID, ...defaultSettings() };
}

export async function updateSettings(
  ctx: Ctx,
  input: z.infer<typeof settingsPatchBody>,
): Promise<SystemSettings> {
  for (const field of ['allowedImageTypes', 'allowedVideoTypes', 'allowedDocumentTypes'] as const) {
    const blocked = input[field]?.find((t) => (BLOCKED_TYPES as readonly string[]).includes(t));
    if (blocked) throw invalidField(field, `${blocked} can never be allowed`);
  }
  await ensureSettings(ctx.db.kysely);
  const patch: Partial<SystemSettingsTable> = { updated_at: nowIso() };
  if (input.maxImageSize !== undefined) patch.max_image_size = input.maxImageSize;
  if (input.maxVideoSize !== undefined) patch.max_video_size = input.maxVideoSize;
  if (input.maxDocumentSize !== undefined) patch.max_document_size = input.maxDocumentSize;
  if (input.maxAttachmentsPerTicket !== undefined)
    patch.max_attachments_per_ticket = input.maxAttachmentsPerTicket;
  if (input.allowedImageTypes)
    patch.allowed_image_types = JSON.stringify([...new Set(input.allowedImageTypes)]);
  if (input.allowedVideoTypes)
    patch.allowed_video_types = JSON.stringify([...new Set(input.allowedVideoTypes)]);
  if (input.allowedDocumentTypes)
    patch.allowed_document_types = JSON.stringify([...new Set(input.allowedDocumentTypes)]);
  await ctx.db.kysely.transaction().execute(async (tx) => {
    await tx.updateTable('system_settings').set(patch).where('id', '=', SETTINGS_ID).execute();
    await audit(tx, ctx, {
      action: 'admin.settings_updated',
      target: { type: 'settings', id: SETTINGS_ID },
      details: input,
    });
  });
  ctx.log.info({ admin: ctx.actor?.userId, changes: Object.keys(input) }, 'system settings changed');
  return getSettings(ctx);
}

/** GET /api/admin/security. */
export async function getSecuritySettings(s: Services | Ctx) {
  const row = await s.db.kysely
    .selectFrom('system_settings')
    .select('require_two_factor')
    .where('id', '=', SETTINGS_ID)
    .executeTakeFirst();
  return { requireTwoFactor: row?.require_two_factor === 1 };
}

/** PATCH /api/admin/security. */
export async function updateSecuritySettings(ctx: Ctx, input: { requireTwoFactor: boolean }) {
  // Requiring it of everyone while not having it would lock the administrator out at once.
  if (input.requireTwoFactor) {
    const me = await ctx.db.kysely
      .selectFrom('users')
      .select('two_factor_enabled')
      .where('id', '=', ctx.actor?.userId ?? '')
      .executeTakeFirst();
    if (me?.two_factor_enabled !== 1) throw badRequest(ERR.twoFactorSelfFirst);
  }
  await ensureSettings(ctx.db.kysely);
  await ctx.db.kysely.transaction().execute(async (tx) => {
    await tx
      .updateTable('system_settings')
      .set({ require_two_factor: input.requireTwoFactor ? 1 : 0, updated_at: nowIso() })
      .where('id', '=', SETTINGS_ID)
      .execute();
    await audit(tx, ctx, {
      action: 'admin.settings_updated',
      target: { type: 'settings', id: SETTINGS_ID },
      details: input,
    });
  });
  return getSecuritySettings(ctx);
}
