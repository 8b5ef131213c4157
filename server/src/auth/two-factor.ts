import crypto from 'node:crypto';
import { TWO_FACTOR_MESSAGES } from '@wa/contract';
import { and, eq } from 'drizzle-orm';
import * as OTPAuth from 'otpauth';
import QRCode from 'qrcode';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { recoveryCodes, users } from '../db/schema.ts';
import { badRequest, conflict } from '../errors.ts';
import { sha256 } from '../ids.ts';
import type { UserRow } from '../users/repository.ts';
import { checkLoginAllowed, clearAccountFailures, recordLoginFailure } from './throttle.ts';

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

/** A code one step either side of now is accepted: phones' clocks drift. */
const totpMatches = (secret: string, username: string, code: string) =>
  /^[0-9]{6}$/.test(code) && totpOf(secret, username).validate({ token: code, window: 1 }) !== null;

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
export async function verifySecondFactor(db: Db, user: UserRow, code: string): Promise<boolean> {
  if (!user.totpSecret) return false;
  const trimmed = code.trim();
  if (totpMatches(user.totpSecret, user.username, trimmed)) return true;
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
export async function startTwoFactorSetup(db: Db, user: UserRow) {
  if (isTwoFactorOn(user)) throw conflict(TWO_FACTOR_MESSAGES.alreadyOn);
  const secret = new OTPAuth.Secret({ size: 20 }).base32;
  await db.update(users).set({ totpSecret: secret, updatedAt: new Date() }).where(eq(users.id, user.id));
  const otpauthUrl = totpOf(secret, user.username).toString();
  const qr = await QRCode.toDataURL(otpauthUrl, { errorCorrectionLevel: 'M', margin: 2 });
  return { success: true as const, secret, otpauthUrl, qr };
}

/** A wrong code counts as a failed sign-in of the account (same limits as passwords). */
async function checkedCode(
  db: Db,
  config: Config,
  user: UserRow,
  ip: string,
  matches: () => Promise<boolean> | boolean,
): Promise<void> {
  await checkLoginAllowed(db, config, user.username, ip);
  if (!(await matches())) {
    await recordLoginFailure(db, user.username, ip);
    throw badRequest(TWO_FACTOR_MESSAGES.codeWrong);
  }
  await clearAccountFailures(db, user.username);
}

export async function enableTwoFactor(db: Db, config: Config, user: UserRow, code: string, ip: string) {
  if (isTwoFactorOn(user)) throw conflict(TWO_FACTOR_MESSAGES.alreadyOn);
  const secret = user.totpSecret;
  if (!secret) throw badRequest(TWO_FACTOR_MESSAGES.noSetup);
  await checkedCode(db, config, user, ip, () => totpMatches(secret, user.username, code.trim()));
  const codes = newRecoveryCodes();
  await db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({ totpEnabledAt: new Date(), updatedAt: new Date() })
      .where(eq(users.id, user.id));
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.id));
    await tx
      .insert(recoveryCodes)
      .values(codes.map((c) => ({ userId: user.id, codeHash: sha256(normaliseRecovery(c)) })));
  });
  return { success: true as const, message: TWO_FACTOR_MESSAGES.enabled, recoveryCodes: codes };
}

export async function disableTwoFactor(db: Db, config: Config, user: UserRow, code: string, ip: string) {
  if (!isTwoFactorOn(user)) throw badRequest(TWO_FACTOR_MESSAGES.notOn);
  await checkedCode(db, config, user, ip, () => verifySecondFactor(db, user, code));
  await db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({ totpSecret: null, totpEnabledAt: null, updatedAt: new Date() })
      .where(eq(users.id, user.id));
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.id));
  });
  return { success: true, message: TWO_FACTOR_MESSAGES.disabled };
}
