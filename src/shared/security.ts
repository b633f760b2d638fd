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
