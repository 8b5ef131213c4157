import crypto from 'node:crypto';
import { TWO_FACTOR_MESSAGES } from '@wa/contract';
import { and, eq, sql } from 'drizzle-orm';
import * as OTPAuth from 'otpauth';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { recoveryCodes, users } from '../db/schema.ts';
import { decryptValue, sealSecret, totpSecretContext } from '../db/secrets.ts';
import { badRequest, conflict } from '../errors.ts';
import { sha256 } from '../ids.ts';
import { revokeKeysOf, type UserRow } from '../users/repository.ts';
import { reserveLoginAttempt } from './throttle.ts';

const ISSUER = 'WhatsApp Bulk Console';
export const RECOVERY_CODE_COUNT = 10;

function totpOf(secret: string, username: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({
    issuer: ISSUER,
    label: username,
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    secret: OTPAuth.Secret.fromBase32(secret),
  });
}

const PERIOD_MS = 30_000;

/**
 * The time step a code belongs to, or null: one step either side of now is accepted (phones'
 * clocks drift).
 */
function totpStep(secret: string, username: string, code: string): number | null {
  if (!/^[0-9]{6}$/.test(code)) return null;
  const now = Date.now();
  const delta = totpOf(secret, username).validate({ token: code, window: 1, timestamp: now });
  return delta === null ? null : Math.floor(now / PERIOD_MS) + delta;
}

/**
 * Marks a code's step used: true only for a step later than the last one used, in one
 * statement, so a code (or an earlier one) never signs in twice, even when two requests race.
 */
async function claimTotpStep(db: Db, userId: string, step: number): Promise<boolean> {
  const claimed = await db
    .update(users)
    .set({ totpLastStep: step })
    .where(and(eq(users.id, userId), sql`coalesce(${users.totpLastStep}, -1) < ${step}`))
    .returning({ id: users.id });
  return claimed.length > 0;
}

const secretOf = (config: Pick<Config, 'secretKey'>, user: Pick<UserRow, 'id' | 'totpSecret'>) =>
  user.totpSecret ? decryptValue(config.secretKey, totpSecretContext(user.id), user.totpSecret) : null;

const normaliseRecovery = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');

/** Ten codes like `k3m9q-x2a7p`: 50 random bits each, stored hashed. */
function newRecoveryCodes(): string[] {
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from(crypto.randomBytes(10), (b) => alphabet[b % alphabet.length]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

export const isTwoFactorOn = (user: Pick<UserRow, 'totpEnabledAt'>) => user.totpEnabledAt !== null;

/** An ADMIN without two-factor sign-in when REQUIRE_ADMIN_2FA is set: only the set-up is open to them. */
export const mustSetUpTwoFactor = (config: Pick<Config, 'requireAdmin2fa'>, user: UserRow) =>
  config.requireAdmin2fa && user.role === 'ADMIN' && !isTwoFactorOn(user);

/**
 * The second factor at sign-in or to turn it off: a current authenticator code, or an unused
 * recovery code (deleted as it is used, so it works once even when two requests race).
 */
export async function verifySecondFactor(
  db: Db,
  config: Pick<Config, 'secretKey'>,
  user: UserRow,
  code: string,
): Promise<boolean> {
  const secret = secretOf(config, user);
  if (!secret) return false;
  const trimmed = code.trim();
  const step = totpStep(secret, user.username, trimmed);
  if (step !== null) return claimTotpStep(db, user.id, step);
  const used = await db
    .delete(recoveryCodes)
    .where(
      and(eq(recoveryCodes.userId, user.id), eq(recoveryCodes.codeHash, sha256(normaliseRecovery(trimmed)))),
    )
    .returning({ userId: recoveryCodes.userId });
  return used.length > 0;
}

export function twoFactorStatus(config: Pick<Config, 'requireAdmin2fa'>, user: UserRow) {
  return { success: true as const, enabled: isTwoFactorOn(user), required: mustSetUpTwoFactor(config, user) };
}

/** A new secret and its QR; it replaces any earlier unfinished set-up and is off until a code confirms it. */
export async function startTwoFactorSetup(db: Db, config: Pick<Config, 'secretKey'>, user: UserRow) {
  if (isTwoFactorOn(user)) throw conflict(TWO_FACTOR_MESSAGES.alreadyOn);
  const secret = new OTPAuth.Secret({ size: 20 }).base32;
  await db
    .update(users)
    .set({
      totpSecret: sealSecret(config.secretKey, totpSecretContext(user.id), secret),
      totpLastStep: null,
      updatedAt: new Date(),
    })
    .where(eq(users.id, user.id));
  const otpauthUrl = totpOf(secret, user.username).toString();
  // qrcode loads with the first set-up (as with the linking QR, accounts/service.ts), not at start.
  const { default: QRCode } = await import('qrcode');
  const qr = await QRCode.toDataURL(otpauthUrl, { errorCorrectionLevel: 'M', margin: 2 });
  return { success: true as const, secret, otpauthUrl, qr };
}

/** A code counts as a sign-in attempt of the account, reserved before it is checked (same limits as passwords). */
async function checkedCode(
  db: Db,
  config: Config,
  user: UserRow,
  ip: string,
  matches: () => Promise<boolean> | boolean,
): Promise<void> {
  const attempt = await reserveLoginAttempt(db, config, user.username, ip);
  if (!(await matches())) throw badRequest(TWO_FACTOR_MESSAGES.codeWrong);
  await attempt.succeeded();
}

export async function enableTwoFactor(db: Db, config: Config, user: UserRow, code: string, ip: string) {
  if (isTwoFactorOn(user)) throw conflict(TWO_FACTOR_MESSAGES.alreadyOn);
  const secret = secretOf(config, user);
  if (!secret) throw badRequest(TWO_FACTOR_MESSAGES.noSetup);
  await checkedCode(db, config, user, ip, async () => {
    const step = totpStep(secret, user.username, code.trim());
    return step !== null && (await claimTotpStep(db, user.id, step));
  });
  const codes = newRecoveryCodes();
  await db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({ totpEnabledAt: new Date(), updatedAt: new Date() })
      .where(eq(users.id, user.id));
    // Keys made before the second factor was on did not need it: they end here.
    await revokeKeysOf(tx, user.id, 'two_factor');
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.id));
    await tx
      .insert(recoveryCodes)
      .values(codes.map((c) => ({ userId: user.id, codeHash: sha256(normaliseRecovery(c)) })));
  });
  return { success: true as const, message: TWO_FACTOR_MESSAGES.enabled, recoveryCodes: codes };
}

export async function disableTwoFactor(db: Db, config: Config, user: UserRow, code: string, ip: string) {
  if (!isTwoFactorOn(user)) throw badRequest(TWO_FACTOR_MESSAGES.notOn);
  await checkedCode(db, config, user, ip, () => verifySecondFactor(db, config, user, code));
  await db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({ totpSecret: null, totpEnabledAt: null, totpLastStep: null, updatedAt: new Date() })
      .where(eq(users.id, user.id));
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.id));
  });
  return { success: true, message: TWO_FACTOR_MESSAGES.disabled };
}
