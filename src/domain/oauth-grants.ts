/** OAuth access tokens on the API, and the grants a user has given (src/domain/oauth.ts issues them). */
import { sql } from 'kysely';
import type { z } from 'zod';
import { scopesMarker } from '../db/changes.js';
import { ERR } from '../shared/errors.js';
import type { oauthGrantItemOut } from '../shared/oauth.js';
import { SESSION_SCOPES } from './auth.js';
import { type Actor, actorOf, type Ctx, keyActor, type Services } from './context.js';
import { AppError, notFound } from './errors.js';
import { nowIso } from './ids.js';
import { revokeGrantTx } from './oauth.js';
import { presentOAuthGrant } from './presenters/security.js';
import { readCache } from './read-cache.js';
import { hashToken } from './tokens.js';

/** Resolves a Bearer access token; 401 `Invalid access token` for a wrong, expired or revoked one. */
export async function resolveOAuthAccessToken(s: Services, token: string): Promise<Actor> {
  const tokenHash = hashToken(token);
  const row = await readCache(s.db).get(
    s,
    `oauth-token:${tokenHash}`,
    async () => {
      const found = await s.db.kysely
        .selectFrom('oauth_tokens')
        .innerJoin('oauth_grants', 'oauth_grants.id', 'oauth_tokens.grant_id')
        .innerJoin('users', 'users.id', 'oauth_grants.user_id')
        .select([
          'oauth_tokens.scope',
          'oauth_tokens.expires_at',
          'oauth_grants.id as grant_id',
          'oauth_grants.last_used_at',
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
        .where('oauth_tokens.token_hash', '=', tokenHash)
        .where('oauth_tokens.kind', '=', 'access')
        .executeTakeFirst();
      return found ?? null;
    },
    () => SESSION_SCOPES,
  );
  const now = nowIso();
  if (row?.is_active !== 1 || row.expires_at <= now) throw new AppError(401, ERR.invalidAccessToken);
  if (!row.last_used_at || Date.parse(now) - Date.parse(row.last_used_at) > 60_000) {
    // The kept token has its new time already; no cached answer shows it.
    row.last_used_at = now;
    await s.db.kysely
      .updateTable('oauth_grants')
      .set({ last_used_at: now })
      .where('id', '=', row.grant_id)
      .modifyEnd(sql.raw(scopesMarker([])))
      .execute();
  }
  return keyActor(row, row.scope);
}

/** The clients I let act for me, newest first. */
export async function listGrants(ctx: Ctx): Promise<z.infer<typeof oauthGrantItemOut>[]> {
  const rows = await ctx.db.kysely
    .selectFrom('oauth_grants')
    .innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_grants.client_id')
    .select([
      'oauth_grants.id',
      'oauth_grants.client_id',
      'oauth_clients.name',
      'oauth_clients.client_uri',
      'oauth_grants.scope',
      'oauth_grants.created_at',
      'oauth_grants.last_used_at',
    ])
    .where('oauth_grants.user_id', '=', actorOf(ctx).userId)
    .orderBy('oauth_grants.created_at', 'desc')
    .orderBy('oauth_grants.id', 'desc')
    .execute();
  return rows.map(presentOAuthGrant);
}

/** Revokes one of my grants with its tokens (404 for anyone else's). */
export async function revokeGrant(ctx: Ctx, grantId: string) {
  const userId = actorOf(ctx).userId;
  const gone = await ctx.db.kysely.transaction().execute(async (tx) => {
    const mine = await tx
      .selectFrom('oauth_grants')
      .select('id')
      .where('id', '=', grantId.toLowerCase())
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return mine ? revokeGrantTx(tx, ctx, mine.id, 'user') : undefined;
  });
  if (!gone) throw notFound(ERR.oauthGrantNotFound);
  return { success: true as const };
}
