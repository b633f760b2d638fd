/**
 * Ending what a user signed in with (docs/security.md, docs/decisions/056-credentials-end-with-the-password.md):
 * a password change or reset ends the user's sessions, API keys (but those the change keeps) and
 * OAuth grants with their tokens; disabling an account ends all of them. One statement per kind,
 * in the caller's transaction, with an audit entry for each key and grant and one for the sessions.
 */
import { ERR } from '../shared/errors.js';
import type { PasswordChangedOut } from '../shared/security.js';
import { type AuditEntry, auditMany } from './audit.js';
import type { Ctx, Tx } from './context.js';
import { invalidField } from './errors.js';

/** Why the credentials end; written to the audit entries as `details.reason`. */
export type EndReason = 'password changed' | 'password reset' | 'account disabled';

type Key = PasswordChangedOut['keptApiKeys'][number];
type Grant = PasswordChangedOut['ended']['oauthGrants'][number];

export interface EndedCredentials {
  /** Sessions ended, not counting `currentSessionId` (which a password change replaces). */
  sessions: number;
  apiKeys: Key[];
  oauthGrants: Grant[];
  keptApiKeys: Key[];
  /** SHA-256 of every ended session token, API key and OAuth access token: their streams close. */
  hashes: string[];
}

export interface EndOptions {
  reason: EndReason;
  /** Ids of API keys of the user that stay (a password change's `keepApiKeys`). */
  keepApiKeys?: string[];
  /** The session that made the change: not counted as ended (it is replaced by a fresh one). */
  currentSessionId?: string | null;
  /** The audit entries' actor, when not the context's (a reset by e-mail acts as the user). */
  actor?: { id: string; name?: string } | null;
}

const keyOf = (r: { id: string; name: string; scope: string }): Key => ({
  id: r.id,
  name: r.name,
  scope: r.scope === 'read' ? 'read' : 'write',
});

/** Checks the keys to keep: each must be one of the user's keys (400 naming the entry otherwise). */
async function keysToKeep(tx: Tx, userId: string, ids: string[]): Promise<Key[]> {
  const wanted = ids.map((id) => id.toLowerCase());
  if (wanted.length === 0) return [];
  const rows = await tx
    .selectFrom('api_keys')
    .select(['id', 'name', 'scope'])
    .where('user_id', '=', userId)
    .where('id', 'in', [...new Set(wanted)])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const found = new Set(rows.map((r) => r.id));
  const missing = wanted.findIndex((id) => !found.has(id));
  if (missing >= 0) throw invalidField(`keepApiKeys.${missing}`, ERR.notYourApiKey);
  return rows.map(keyOf);
}

/**
 * Ends the user's sessions, unused password-reset links, API keys (but `keepApiKeys`) and OAuth
 * grants (their codes and tokens go with them), in the caller's transaction; answers what ended.
 */
export async function endCredentials(
  tx: Tx,
  who: Pick<Ctx, 'actor' | 'address'>,
  userId: string,
  opts: EndOptions,
): Promise<EndedCredentials> {
  const kept = await keysToKeep(tx, userId, opts.keepApiKeys ?? []);
  const sessions = await tx
    .deleteFrom('sessions')
    .where('user_id', '=', userId)
    .returning(['id', 'token_hash'])
    .execute();
  await tx.deleteFrom('password_resets').where('user_id', '=', userId).execute();
  let keys = tx.deleteFrom('api_keys').where('user_id', '=', userId);
  if (kept.length > 0)
    keys = keys.where(
      'id',
      'not in',
      kept.map((k) => k.id),
    );
  const endedKeys = await keys.returning(['id', 'name', 'scope', 'created_at', 'key_hash']).execute();
  endedKeys.sort((a, b) => (a.created_at === b.created_at ? 0 : a.created_at < b.created_at ? 1 : -1));
  const grants = await tx
    .selectFrom('oauth_grants')
    .innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_grants.client_id')
    .select(['oauth_grants.id', 'oauth_grants.client_id', 'oauth_clients.name', 'oauth_grants.scope'])
    .where('oauth_grants.user_id', '=', userId)
    .orderBy('oauth_grants.created_at', 'desc')
    .orderBy('oauth_grants.id', 'desc')
    .execute();
  const accessTokens =
    grants.length === 0
      ? []
      : await tx
          .selectFrom('oauth_tokens')
          .select('token_hash')
          .where(
            'grant_id',
            'in',
            grants.map((g) => g.id),
          )
          .where('kind', '=', 'access')
          .execute();
  // The grants' codes and tokens go with them (foreign keys, cascade).
  if (grants.length > 0) await tx.deleteFrom('oauth_grants').where('user_id', '=', userId).execute();

  const ended: EndedCredentials = {
    sessions: sessions.filter((s) => s.id !== opts.currentSessionId).length,
    apiKeys: endedKeys.map(keyOf),
    oauthGrants: grants.map((g) => ({
      id: g.id,
      clientId: g.client_id,
      clientName: g.name,
      scope: g.scope === 'read' ? 'read' : 'write',
    })),
    keptApiKeys: kept,
    hashes: [
      ...sessions.map((s) => s.token_hash),
      ...endedKeys.map((k) => k.key_hash),
      ...accessTokens.map((t) => t.token_hash),
    ],
  };
  await auditMany(tx, who, auditEntries(userId, opts, ended));
  return ended;
}

function auditEntries(userId: string, opts: EndOptions, ended: EndedCredentials): AuditEntry[] {
  const base = opts.actor !== undefined ? { actor: opts.actor } : {};
  const reason = opts.reason;
  const entries: AuditEntry[] = [];
  if (ended.sessions > 0)
    entries.push({
      ...base,
      action: 'session.ended',
      target: { type: 'user', id: userId },
      details: { reason, count: ended.sessions },
    });
  for (const k of ended.apiKeys)
    entries.push({
      ...base,
      action: 'api_key.revoked',
      target: { type: 'api_key', id: k.id },
      details: { name: k.name, reason },
    });
  for (const g of ended.oauthGrants)
    entries.push({
      ...base,
      action: 'oauth.grant_revoked',
      target: { type: 'oauth_grant', id: g.id },
      details: { clientId: g.clientId, reason },
    });
  return entries;
}

/** The public part of what ended (the hashes stay on the server). */
export function presentEnded(e: EndedCredentials): PasswordChangedOut {
  return {
    success: true,
    ended: { sessions: e.sessions, apiKeys: e.apiKeys, oauthGrants: e.oauthGrants },
    keptApiKeys: e.keptApiKeys,
  };
}
