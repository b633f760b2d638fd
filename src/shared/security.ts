/** Contracts of the account-security endpoints: sessions, scoped API keys, the audit log (issue 19). */
import { z } from 'zod';

/** One of my sessions (GET /api/me/sessions). */
export const sessionItemOut = z.object({
  id: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  expiresAt: z.string(),
  userAgent: z.string().nullable(),
  address: z.string().nullable(),
  /** The session this request came with. */
  current: z.boolean(),
});
export type SessionItemOut = z.infer<typeof sessionItemOut>;

export const endedSessionsOut = z.object({ success: z.literal(true), ended: z.number().int() });

export const KEY_SCOPES = ['read', 'write'] as const;

/** POST /api/me/api-keys. */
export const createApiKeyBody = z.strictObject({
  name: z.string().trim().min(1).max(100),
  scope: z.enum(KEY_SCOPES),
  expiresInDays: z.number().int().min(1).max(3650).optional(),
});

/** One of my API keys (the key itself is never shown again). */
export const apiKeyItemOut = z.object({
  id: z.string(),
  name: z.string(),
  scope: z.enum(KEY_SCOPES),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
});

export type ApiKeyItemOut = z.infer<typeof apiKeyItemOut>;

/** The answer of POST /api/me/api-keys: the key, shown once. */
export const createdApiKeyOut = apiKeyItemOut.omit({ lastUsedAt: true }).extend({ key: z.string() });

/** GET /api/admin/audit query. */
export const auditQuery = z.strictObject({
  /** A user id or username. */
  actor: z.string().min(1).max(100).optional(),
  /** An action, or a prefix ending in `*` (`admin.*`). */
  action: z.string().min(1).max(100).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
  cursor: z.string().min(1).max(64).optional(),
});
export type AuditQuery = z.infer<typeof auditQuery>;

export const auditEntryOut = z.object({
  id: z.string(),
  at: z.string(),
  actor: z.object({ id: z.string(), username: z.string().nullable() }).nullable(),
  action: z.string(),
  target: z.object({ type: z.string(), id: z.string().nullable() }).nullable(),
  address: z.string().nullable(),
  details: z.record(z.string(), z.unknown()).nullable(),
});

export type AuditEntryOut = z.infer<typeof auditEntryOut>;

export const auditPageOut = z.object({ items: z.array(auditEntryOut), nextCursor: z.string().nullable() });

/** Two-factor sign-in (TOTP). */
export const twoFactorStatusOut = z.object({ enabled: z.boolean(), recoveryCodesLeft: z.number().int() });
export const twoFactorSetupOut = z.object({ secret: z.string(), otpauthUrl: z.string() });
export const twoFactorEnableBody = z.strictObject({ code: z.string().trim().min(1).max(32) });
export const twoFactorEnableOut = z.object({ recoveryCodes: z.array(z.string()) });
export const twoFactorDisableBody = z.strictObject({
  password: z.string().min(1).max(1000),
  code: z.string().trim().min(1).max(32),
});

/** GET/PATCH /api/admin/security. */
export const securitySettingsOut = z.object({ requireTwoFactor: z.boolean() });
export const securitySettingsBody = z.strictObject({ requireTwoFactor: z.boolean() });
