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

/** The answer of POST /api/me/api-keys: the key, shown once. */
export const createdApiKeyOut = apiKeyItemOut.omit({ lastUsedAt: true }).extend({ key: z.string() });

/** An API key as named in the answer of a password change or reset (the key itself is never shown). */
export const credentialKeyOut = apiKeyItemOut.pick({ id: true, name: true, scope: true });
/** An OAuth grant (a connected app) as named there. */
export const credentialGrantOut = z.object({
  id: z.string(),
  clientId: z.string(),
  clientName: z.string(),
  scope: z.enum(KEY_SCOPES),
});

/**
 * What a password change or reset ended (docs/security.md): the other sessions (a change replaces
 * the one it was made with by a fresh one), the API keys and the OAuth grants with their tokens.
 */
export const endedCredentialsOut = z.object({
  sessions: z.number().int(),
  apiKeys: z.array(credentialKeyOut),
  oauthGrants: z.array(credentialGrantOut),
});

/**
 * The answer of `PATCH /api/me/password` and `POST /api/auth/reset`: `{success: true}` as before,
 * plus what ended and the keys kept by `keepApiKeys`.
 */
export const passwordChangedOut = z.object({
  success: z.literal(true),
  ended: endedCredentialsOut,
  keptApiKeys: z.array(credentialKeyOut),
});
export type PasswordChangedOut = z.infer<typeof passwordChangedOut>;

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
export const securitySettingsOut = z.object({
  requireTwoFactor: z.boolean(),
  /** New accounts are confirmed by e-mail before they exist (needs e-mail configured). */
  requireEmailConfirmation: z.boolean(),
});
export const securitySettingsBody = z
  .strictObject({
    requireTwoFactor: z.boolean().optional(),
    requireEmailConfirmation: z.boolean().optional(),
  })
  .refine((b) => b.requireTwoFactor !== undefined || b.requireEmailConfirmation !== undefined, {
    message: 'Give requireTwoFactor or requireEmailConfirmation',
  });
