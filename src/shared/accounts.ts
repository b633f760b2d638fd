import { z } from 'zod';
import { DEFAULT_SETTINGS, LIMITS } from './limits.js';

export const usernameSchema = z
  .string()
  .trim()
  .min(LIMITS.usernameMin, `Username must be at least ${LIMITS.usernameMin} characters`)
  .max(LIMITS.usernameMax, `Username must be at most ${LIMITS.usernameMax} characters`)
  .regex(/^[A-Za-z0-9_-]+$/, 'Username may contain only letters, digits, dash and underscore');

/** The password rules, also shown as the user types in the web app. */
export const PASSWORD_RULES = [
  { id: 'length', label: `At least ${LIMITS.passwordMin} characters`, test: (p: string) => p.length >= 12 },
  { id: 'upper', label: 'An uppercase letter', test: (p: string) => /[A-Z]/.test(p) },
  { id: 'lower', label: 'A lowercase letter', test: (p: string) => /[a-z]/.test(p) },
  { id: 'digit', label: 'A digit', test: (p: string) => /[0-9]/.test(p) },
] as const;

export const passwordSchema = z
  .string()
  .max(LIMITS.passwordMax, `Password must be at most ${LIMITS.passwordMax} characters`)
  .superRefine((p, ctx) => {
    for (const rule of PASSWORD_RULES) {
      if (!rule.test(p))
        ctx.addIssue({ code: 'custom', message: `Password needs: ${rule.label.toLowerCase()}` });
    }
  });

export const emailSchema = z
  .string()
  .trim()
  .max(LIMITS.emailMax)
  .pipe(z.email('Must be a valid e-mail address'));

export const displayNameSchema = z
  .string()
  .trim()
  .max(LIMITS.nameMax, `Name must be at most ${LIMITS.nameMax} characters`);

/** Optional e-mail: an empty string means none. */
const optionalEmail = z.union([z.literal('').transform(() => null), emailSchema]).nullish();
const optionalName = displayNameSchema.nullish();

export const registerBody = z.object({
  username: usernameSchema,
  password: passwordSchema,
  email: optionalEmail,
  name: optionalName,
});

export const loginBody = z.object({
  username: z.string().trim().min(1).max(LIMITS.emailMax),
  password: z.string().min(1).max(LIMITS.passwordMax),
  /** With two-factor sign-in on: a TOTP code or an unused recovery code. */
  code: z.string().trim().min(1).max(32).optional(),
});

/** Forgotten password: the account's e-mail address or its username (one of them). */
export const forgotPasswordBody = z
  .object({
    email: emailSchema.optional(),
    username: z.string().trim().min(1).max(LIMITS.emailMax).optional(),
  })
  .refine((b) => Boolean(b.email) !== Boolean(b.username), {
    message: 'Give your e-mail address or your username',
  });

/** A new password through the link of a forgotten-password e-mail. */
export const resetPasswordBody = z.object({
  token: z.string().trim().min(20).max(200),
  password: passwordSchema,
});

/** What the sign-in page offers (GET /api/auth/options): public, no secrets. */
export const authOptionsOut = z.object({
  registration: z.enum(['open', 'closed']),
  /** Forgotten-password e-mails (e-mail is configured). */
  passwordReset: z.boolean(),
  /** Single sign-on, when configured: the button's label and where it starts. */
  sso: z.object({ name: z.string(), url: z.string() }).nullable(),
  /** With `DOCKET_OIDC_ONLY`, password sign-in is for system administrators only. */
  passwordSignIn: z.enum(['everyone', 'admins']),
  /** New accounts are confirmed by e-mail (an administrators' setting): an e-mail address is required. */
  emailConfirmation: z.boolean(),
});

export const signoutBody = z.object({ callbackUrl: z.string().max(2048).optional() }).optional();

export const updateMeBody = z.object({ name: displayNameSchema.nullable() });
export const changeEmailBody = z.object({
  email: emailSchema,
  password: z.string().min(1).max(LIMITS.passwordMax),
});
export const changePasswordBody = z.object({
  currentPassword: z.string().min(1).max(LIMITS.passwordMax),
  newPassword: passwordSchema,
  /**
   * API keys (ids) that keep working after the change; every other key, and every OAuth grant,
   * ends with it (docs/security.md).
   */
  keepApiKeys: z.array(z.string().trim().min(1).max(100)).max(LIMITS.apiKeysPerUser).optional(),
});
export const deleteAccountBody = z.object({
  password: z.string().min(1).max(LIMITS.passwordMax),
  confirmation: z.literal('delete my account', { error: "Type 'delete my account' to confirm" }),
});

export const confirmPasswordBody = z.object({ confirmPassword: z.string().min(1).max(LIMITS.passwordMax) });

export const adminCreateUserBody = z.object({
  username: usernameSchema,
  password: passwordSchema,
  confirmPassword: z.string().min(1).max(LIMITS.passwordMax),
  email: optionalEmail,
  name: optionalName,
  isSystemAdmin: z.boolean().optional(),
});

export const adminUpdateUserBody = z
  .object({
    name: optionalName,
    email: optionalEmail,
    isSystemAdmin: z.boolean().optional(),
    isActive: z.boolean().optional(),
  })
  .strict();

export const adminUsersQuery = z.object({
  search: z.string().max(200).optional(),
  status: z.enum(['active', 'disabled']).optional(),
  role: z.enum(['admin', 'user']).optional(),
  sortBy: z.enum(['username', 'name', 'email', 'createdAt']).optional(),
  sortOrder: z.enum(['asc', 'desc']).optional(),
  limit: z.coerce.number().int().min(1).max(LIMITS.listLimitMax).optional(),
  offset: z.coerce.number().int().min(0).optional(),
});

export const usersQuery = z.object({
  search: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
  offset: z.coerce.number().int().min(0).optional(),
});

const mimeList = z
  .array(
    z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[a-z0-9.+-]+\/[a-z0-9.+-]+$/, 'Must be a MIME type'),
  )
  .max(100);
const positiveSize = z
  .number()
  .int('Must be a whole number of bytes')
  .positive('Must be a positive size')
  .max(10 * 1024 ** 3);

export const settingsPatchBody = z
  .object({
    maxImageSize: positiveSize,
    maxVideoSize: positiveSize,
    maxDocumentSize: positiveSize,
    maxAttachmentsPerTicket: z.number().int().positive().max(10_000),
    allowedImageTypes: mimeList,
    allowedVideoTypes: mimeList,
    allowedDocumentTypes: mimeList,
  })
  .partial()
  .strict();

export const systemSettingsOut = z.object({
  id: z.string(),
  maxImageSize: z.number().int(),
  maxVideoSize: z.number().int(),
  maxDocumentSize: z.number().int(),
  maxAttachmentsPerTicket: z.number().int(),
  allowedImageTypes: z.array(z.string()),
  allowedVideoTypes: z.array(z.string()),
  allowedDocumentTypes: z.array(z.string()),
});
export type SystemSettings = z.infer<typeof systemSettingsOut>;

export const defaultSettings = (): Omit<SystemSettings, 'id'> => ({
  ...DEFAULT_SETTINGS,
  allowedImageTypes: [...DEFAULT_SETTINGS.allowedImageTypes],
  allowedVideoTypes: [...DEFAULT_SETTINGS.allowedVideoTypes],
  allowedDocumentTypes: [...DEFAULT_SETTINGS.allowedDocumentTypes],
});

// ---- Answers ----

/** GET /api/me and the profile answers. */
export const meOut = z.object({
  id: z.string(),
  username: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  avatar: z.string().nullable(),
  isSystemAdmin: z.boolean(),
  mustChangePassword: z.boolean(),
  createdAt: z.string(),
});
export type MeOut = z.infer<typeof meOut>;

/** A user as the administrators see it. */
export const adminUserOut = meOut.omit({ mustChangePassword: true }).extend({ isActive: z.boolean() });
export type AdminUserOut = z.infer<typeof adminUserOut>;

export const registerOut = z.object({
  id: z.string(),
  username: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  isSystemAdmin: z.boolean(),
});

/** How long a registration's confirmation link works. */
export const CONFIRMATION_VALID_HOURS = 24;

/**
 * The answer to a registration when new accounts are confirmed by e-mail (202): the same whether
 * the username and address were free or not; what happens next arrives by e-mail.
 */
export const registrationQueuedOut = z.object({ confirmationRequired: z.literal(true) });

/** Confirms a registration with its link's token and the password chosen when registering. */
export const confirmRegistrationBody = z.object({
  token: z.string().trim().min(20).max(200),
  password: z.string().min(1).max(LIMITS.passwordMax),
});

/** The signed-in user of a session (sign-in answer and GET /api/auth/session). */
export const sessionUserOut = z.object({
  id: z.string(),
  username: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  avatar: z.string().nullable().optional(),
  isSystemAdmin: z.boolean(),
  mustChangePassword: z.boolean(),
  /** Administrators require two-factor sign-in and this user has not turned it on (docs/security.md). */
  twoFactorSetupRequired: z.boolean().optional(),
});
export type SessionUserOut = z.infer<typeof sessionUserOut>;
export const signedInOut = z.object({ user: sessionUserOut, expires: z.string().nullable() });
/** GET /api/auth/session: the session, or `{}` when signed out. */
export const sessionOut = z.union([signedInOut, z.strictObject({})]);
export type SessionOut = z.infer<typeof sessionOut>;
export const verifyCredentialsOut = z.object({
  valid: z.boolean(),
  user: z.object({ id: z.string(), username: z.string(), name: z.string().nullable() }).optional(),
});
export const signoutOut = z.object({ url: z.string() });

export const apiKeyOut = z.object({ apiKey: z.string(), createdAt: z.string() });
export const apiKeyStatusOut = z.object({
  hasKey: z.boolean(),
  createdAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});
export type ApiKeyStatusOut = z.infer<typeof apiKeyStatusOut>;
