import { z } from 'zod';
import { LIMITS } from './limits.js';

/** The literal text an administrator types to wipe everything. */
export const WIPE_CONFIRMATION = 'wipe all data';

const confirmPassword = z.string().min(1).max(LIMITS.passwordMax);

export const exportBody = z.object({ confirmPassword });
export const wipeBody = z.object({
  confirmPassword,
  confirmation: z.literal(WIPE_CONFIRMATION, { error: `Type '${WIPE_CONFIRMATION}' to confirm` }),
});
export const wipeProjectsBody = z.object({ confirmPassword });

export const importResult = z.object({
  success: z.boolean(),
  imported: z.object({ users: z.number(), projects: z.number(), tickets: z.number(), sprints: z.number() }),
});
export const wipeResult = z.object({
  success: z.boolean(),
  newAdminCredentials: z.object({ username: z.string(), temporaryPassword: z.string() }),
});
export const wipeProjectsResult = z.object({
  success: z.boolean(),
  wiped: z.object({ projects: z.number(), tickets: z.number(), sprints: z.number() }),
});
