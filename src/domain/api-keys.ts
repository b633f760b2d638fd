import { sql } from 'kysely';
import type { z } from 'zod';
import { scopesMarker } from '../db/changes.js';
import { ERR } from '../shared/errors.js';
import type { createApiKeyBody } from '../shared/security.js';
import { audit } from './audit.js';
import { SESSION_SCOPES } from './auth.js';
import { type Actor, actorOf, type Ctx, keyActor, type Services } from './context.js';
import { AppError, badRequest, notFound } from './errors.js';
import { newId, nowIso } from './ids.js';
import { OAUTH_ACCESS_PREFIX } from './oauth.js';
import { resolveOAuthAccessToken } from './oauth-grants.js';
import { arg, runPrepared } from './prepared.js';
import { presentApiKey } from './presenters/security.js';
import { readCache } from './read-cache.js';
import { hashToken, newApiKey } from './tokens.js';

/**
 * API keys (docs/security.md): several named keys per user, each `read` or `write`, with an
 * optional expiry; only their hashes are stored. A key acts with its user's project memberships
 * only, never with system-administrator powers; a read key may not write (403 `Read-only API
 * key`, enforced for every state-changing request in src/server/plugins/auth.ts). The key of
 * /api/me/mcp-key is the write key named "MCP".
 */
export type KeyScope = 'read' | 'write';

/** The name of the key that /api/me/mcp-key manages. */
export const MCP_KEY_NAME = 'MCP';
/** Keys one user may hold. */
export const MAX_KEYS_PER_USER = 50;

/**
 * Resolves a Bearer API key (or OAuth access token); 401 `Invalid API key` for a wrong, revoked
 * or expired key or an inactive user.
 */
export async function resolveApiKey(s: Services, key: string): Promise<Actor> {
  // An OAuth access token acts like a scoped key (src/domain/oauth.ts).
  if (key.startsWith(OAUTH_ACCESS_PREFIX)) return resolveOAuthAccessToken(s, key);
  const keyHash = hashToken(key);
  const row = await readCache(s.db).get(
    s,
    `api-key:${keyHash}`,
    async () => {
      const [found] = await runPrepared(
        s.db.kysely,
        'api-key-resolve',
        (db) =>
          db
            .selectFrom('api_keys')
            .innerJoin('users', 'users.id', 'api_keys.user_id')
            .select([
              'api_keys.id as key_id',
              'api_keys.last_used_at',
              'api_keys.scope',
              'api_keys.expires_at',
              'users.id',
              'users.is_active',
              'users.must_change_password',
              'users.two_factor_enabled',
              (eb) =>
                eb
                  .selectFrom('system_settings')
                  .select('require_two_factor')
                  .where('id', '=', 'system')
                  .as('require_two_factor'),
            ])
            .where('api_keys.key_hash', '=', arg(0)),
        [keyHash],
      );
      return found ?? null;
    },
    () => SESSION_SCOPES,
  );
  if (row?.is_active !== 1) throw new AppError(401, ERR.invalidApiKey);
  const now = nowIso();
  if (row.expires_at !== null && row.expires_at <= now) throw new AppError(401, ERR.invalidApiKey);
  // Record use at most once a minute, so that reads stay reads.
  if (!row.last_used_at || Date.parse(now) - Date.parse(row.last_used_at) > 60_000) {
    // The kept key has its new time already; no cached answer shows it.
    row.last_used_at = now;
    await s.db.kysely
      .updateTable('api_keys')
      .set({ last_used_at: now })
      .where('id', '=', row.key_id)
      .modifyEnd(sql.raw(scopesMarker([])))
      .execute();
  }
  return keyActor(row, row.scope);
}

/** My keys, newest first (never the key itself). */
export async function listApiKeys(ctx: Ctx) {
  const rows = await ctx.db.kysely
    .selectFrom('api_keys')
    .select(['id', 'name', 'scope', 'created_at', 'last_used_at', 'expires_at'])
    .where('user_id', '=', actorOf(ctx).userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map(presentApiKey);
}

/** Creates a key; the key itself is in this answer only. */
export async function createScopedApiKey(ctx: Ctx, body: z.infer<typeof createApiKeyBody>) {
  const userId = actorOf(ctx).userId;
  const key = newApiKey();
  const now = new Date();
  const row = {
    id: newId(),
    user_id: userId,
    name: body.name,
    scope: body.scope,
    key_hash: hashToken(key),
    created_at: now.toISOString(),
    last_used_at: null,
    expires_at: body.expiresInDays
      ? new Date(now.getTime() + body.expiresInDays * 86_400_000).toISOString()
      : null,
  };
  await ctx.db.kysely.transaction().execute(async (tx) => {
    const n = await tx
      .selectFrom('api_keys')
      .select((e) => e.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (Number(n?.n ?? 0) >= MAX_KEYS_PER_USER) throw badRequest(`At most ${MAX_KEYS_PER_USER} API keys`);
    await tx.insertInto('api_keys').values(row).execute();
    await audit(tx, ctx, {
      action: 'api_key.created',
      target: { type: 'api_key', id: row.id },
      details: { name: row.name, scope: row.scope, expiresAt: row.expires_at },
    });
  });
  const { lastUsedAt: _unused, ...shown } = presentApiKey(row);
  return { ...shown, key };
}

/** Revokes one of my keys (404 for anyone else's). */
export async function revokeScopedApiKey(ctx: Ctx, keyId: string) {
  const row = await ctx.db.kysely.transaction().execute(async (tx) => {
    const found = await tx
      .deleteFrom('api_keys')
      .where('id', '=', keyId.toLowerCase())
      .where('user_id', '=', actorOf(ctx).userId)
      .returning(['id', 'name'])
      .executeTakeFirst();
    if (found)
      await audit(tx, ctx, {
        action: 'api_key.revoked',
        target: { type: 'api_key', id: found.id },
        details: { name: found.name },
      });
    return found;
  });
  if (!row) throw notFound(ERR.apiKeyNotFound);
  return { success: true as const };
}

/** POST /api/me/mcp-key: the write key named "MCP", replacing any earlier one. */
export async function createApiKey(ctx: Ctx, userId: string) {
  const apiKey = newApiKey();
  const createdAt = nowIso();
  await ctx.db.kysely.transaction().execute(async (tx) => {
    await tx.deleteFrom('api_keys').where('user_id', '=', userId).where('name', '=', MCP_KEY_NAME).execute();
    const id = newId();
    await audit(tx, ctx, {
      action: 'api_key.created',
      target: { type: 'api_key', id },
      details: { name: MCP_KEY_NAME, scope: 'write', expiresAt: null },
    });
    await tx
      .insertInto('api_keys')
      .values({
        id,
        user_id: userId,
        name: MCP_KEY_NAME,
        scope: 'write',
        key_hash: hashToken(apiKey),
        created_at: createdAt,
        last_used_at: null,
        expires_at: null,
      })
      .execute();
  });
  return { apiKey, createdAt };
}

export async function apiKeyStatus(ctx: Ctx, userId: string) {
  const row = await ctx.db.kysely
    .selectFrom('api_keys')
    .select(['created_at', 'last_used_at'])
    .where('user_id', '=', userId)
    .where('name', '=', MCP_KEY_NAME)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
  return { hasKey: !!row, createdAt: row?.created_at ?? null, lastUsedAt: row?.last_used_at ?? null };
}

export async function revokeApiKey(ctx: Ctx, userId: string) {
  await ctx.db.kysely.transaction().execute(async (tx) => {
    const gone = await tx
      .deleteFrom('api_keys')
      .where('user_id', '=', userId)
      .where('name', '=', MCP_KEY_NAME)
      .returning('id')
      .execute();
    for (const k of gone)
      await audit(tx, ctx, {
        action: 'api_key.revoked',
        target: { type: 'api_key', id: k.id },
        details: { name: MCP_KEY_NAME },
      });
  });
  return { success: true as const };
}
