import type {
  ApiKeysTable,
  AuditLogTable,
  OAuthClientsTable,
  OAuthGrantsTable,
  SessionsTable,
} from '../../db/types.js';
import type { OAuthGrantItemOut } from '../../shared/oauth.js';
import type { ApiKeyItemOut, AuditEntryOut, SessionItemOut } from '../../shared/security.js';

/** One of my sessions; `current` is the one the request came with. Never its token or hash. */
export const presentSession = (
  r: Pick<SessionsTable, 'id' | 'created_at' | 'last_used_at' | 'expires_at' | 'user_agent' | 'address'>,
  currentSessionId: string | null | undefined,
): SessionItemOut => ({
  id: r.id,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  expiresAt: r.expires_at,
  userAgent: r.user_agent,
  address: r.address,
  current: r.id === currentSessionId,
});

/** One of my API keys: never the key itself, nor its hash. */
export const presentApiKey = (
  r: Pick<ApiKeysTable, 'id' | 'name' | 'scope' | 'created_at' | 'last_used_at' | 'expires_at'>,
): ApiKeyItemOut => ({
  id: r.id,
  name: r.name,
  scope: r.scope === 'read' ? 'read' : 'write',
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  expiresAt: r.expires_at,
});

/** A client I let act for me (its grant and the client's name); never its tokens. */
export const presentOAuthGrant = (
  r: Pick<OAuthGrantsTable, 'id' | 'client_id' | 'scope' | 'created_at' | 'last_used_at'> &
    Pick<OAuthClientsTable, 'name' | 'client_uri'>,
): OAuthGrantItemOut => ({
  id: r.id,
  clientId: r.client_id,
  clientName: r.name,
  clientUri: r.client_uri,
  scope: r.scope === 'read' ? 'read' : 'write',
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
});

/** An entry of the audit log; its actor by the name it had then. */
export const presentAuditEntry = (r: AuditLogTable): AuditEntryOut => ({
  id: r.id,
  at: r.at,
  actor: r.actor_id ? { id: r.actor_id, username: r.actor_name } : null,
  action: r.action,
  target: r.target_type ? { type: r.target_type, id: r.target_id } : null,
  address: r.address,
  details: r.details ? (JSON.parse(r.details) as Record<string, unknown>) : null,
});
