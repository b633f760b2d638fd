import { createHash, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { UsersTable } from '../db/types.js';
import { ERR } from '../shared/errors.js';
import { attemptLimiter, userAccount } from './attempts.js';
import { audit } from './audit.js';
import { requirePassword } from './auth.js';
import { actorOf, type Ctx, type Tx } from './context.js';
import { AppError, badRequest, conflict } from './errors.js';
import { nowIso } from './ids.js';

/**
 * Two-factor sign-in with TOTP (RFC 6238: SHA-1, 6 digits, 30 s steps, one step of drift either
 * way) and 10 single-use recovery codes (only their SHA-256 hashes are stored). A TOTP code is
 * accepted once: the step it was accepted for is stored, and codes of that step or earlier are
 * refused.
 */
const PERIOD = 30;
const DIGITS = 6;
const RECOVERY_CODES = 10;

function totp(secret: string, label: string) {
  return new TOTP({
    issuer: 'Docket',
    label,
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD,
    secret: Secret.fromBase32(secret),
  });
}

const hashCode = (code: string) =>
  createHash('sha256').update(code.replace(/[\s-]/g, '').toLowerCase()).digest('hex');

/** A recovery code as shown: 10 characters in two groups (`abcde-fghij`), from an unambiguous alphabet. */
function newRecoveryCode(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => alphabet[b % alphabet.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** The TOTP step a code is valid for (now, or one step either side), or null. */
function stepOf(secret: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = TOTP.validate({
    token: code,
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD,
    timestamp: now,
    window: 1,
  });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD) + delta;
}

export const isTwoFactorOn = (user: UsersTable) => user.two_factor_enabled === 1 && !!user.two_factor_secret;

/**
 * Checks a second factor for this user inside `tx`: a TOTP code not used before, or an unused
 * recovery code (which is then spent). True when it passed (and was recorded as used).
 */
export async function spendSecondFactor(tx: Tx, user: UsersTable, code: string): Promise<boolean> {
  const fresh = await tx.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirst();
  if (!fresh || !isTwoFactorOn(fresh)) return false;
  const cleaned = code.trim();
  const step = stepOf(fresh.two_factor_secret as string, cleaned.replace(/\s/g, ''));
  if (step !== null) {
    if (fresh.two_factor_last_step !== null && step <= fresh.two_factor_last_step) return false;
    // Conditional on the stored step, so two requests with one code cannot both pass.
    const res = await tx
      .updateTable('users')
      .set({ two_factor_last_step: step })
      .where('id', '=', user.id)
      .where((eb) =>
        fresh.two_factor_last_step === null
          ? eb('two_factor_last_step', 'is', null)
          : eb('two_factor_last_step', '=', fresh.two_factor_last_step),
      )
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }
  const hashes = JSON.parse(fresh.two_factor_recovery ?? '[]') as string[];
  const h = hashCode(cleaned);
  if (!hashes.includes(h)) return false;
  const res = await tx
    .updateTable('users')
    .set({ two_factor_recovery: JSON.stringify(hashes.filter((x) => x !== h)) })
    .where('id', '=', user.id)
    .where('two_factor_recovery', '=', fresh.two_factor_recovery)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** GET /api/me/two-factor. */
export async function twoFactorStatus(ctx: Ctx) {
  const u = await ctx.db.kysely
    .selectFrom('users')
    .selectAll()
    .where('id', '=', actorOf(ctx).userId)
    .executeTakeFirstOrThrow();
  const left = JSON.parse(u.two_factor_recovery ?? '[]') as string[];
  return { enabled: isTwoFactorOn(u), recoveryCodesLeft: isTwoFactorOn(u) ? left.length : 0 };
}

/** POST /api/me/two-factor: a new secret to scan; not in use until enabled with a code from it. */
export async function startTwoFactor(ctx: Ctx) {
  const userId = actorOf(ctx).userId;
  const user = await ctx.db.kysely
    .selectFrom('users')
    .selectAll()
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  if (isTwoFactorOn(user)) throw conflict(ERR.twoFactorAlreadyOn);
  const secret = new Secret({ size: 20 }).base32;
  await ctx.db.kysely
    .updateTable('users')
    .set({
      two_factor_secret: secret,
      two_factor_enabled: 0,
      two_factor_last_step: null,
      two_factor_recovery: null,
    })
    .where('id', '=', userId)
    .execute();
  return { secret, otpauthUrl: totp(secret, user.username).toString() };
}

/** POST /api/me/two-factor/enable {code}: turns it on and answers the recovery codes, once. */
export async function enableTwoFactor(ctx: Ctx, code: string) {
  const userId = actorOf(ctx).userId;
  const attempt = await attemptLimiter(ctx).begin(userAccount(userId), ctx.address);
  const enabled = await ctx.db.kysely.transaction().execute(async (tx) => {
    const user = await tx.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
    if (isTwoFactorOn(user)) throw conflict(ERR.twoFactorAlreadyOn);
    if (!user.two_factor_secret) throw badRequest(ERR.twoFactorNotStarted);
    const step = stepOf(user.two_factor_secret, code.replace(/\s/g, ''));
    if (step === null) throw badRequest(ERR.invalidTwoFactorCode);
    const recoveryCodes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    await tx
      .updateTable('users')
      .set({
        two_factor_enabled: 1,
        two_factor_last_step: step,
        two_factor_recovery: JSON.stringify(recoveryCodes.map(hashCode)),
        updated_at: nowIso(),
      })
      .where('id', '=', userId)
      .execute();
    await audit(tx, ctx, { action: 'account.two_factor_enabled', target: { type: 'user', id: userId } });
    return { recoveryCodes };
  });
  // After the commit: the counters are written outside the transaction (one SQLite connection).
  await attempt.succeeded();
  return enabled;
}

/** DELETE /api/me/two-factor {password, code}: needs both the password and a second factor. */
export async function disableTwoFactor(ctx: Ctx, password: string, code: string) {
  const userId = actorOf(ctx).userId;
  const user = await requirePassword(ctx, userId, password, ERR.invalidPassword);
  if (!isTwoFactorOn(user)) throw badRequest(ERR.twoFactorOff);
  const attempt = await attemptLimiter(ctx).begin(userAccount(userId), ctx.address);
  await ctx.db.kysely.transaction().execute(async (tx) => {
    if (!(await spendSecondFactor(tx, user, code))) throw badRequest(ERR.invalidTwoFactorCode);
    await tx
      .updateTable('users')
      .set({
        two_factor_enabled: 0,
        two_factor_secret: null,
        two_factor_last_step: null,
        two_factor_recovery: null,
        updated_at: nowIso(),
      })
      .where('id', '=', userId)
      .execute();
    await audit(tx, ctx, { action: 'account.two_factor_disabled', target: { type: 'user', id: userId } });
  });
  await attempt.succeeded();
  return { success: true as const };
}

/** The sign-in answer when the second factor is missing: no session, and the client asks for it. */
export const twoFactorRequired = () => new AppError(401, ERR.twoFactorRequired, { twoFactor: true });
