import {
  API_KEY_MESSAGES,
  type ChangePasswordBody,
  type ChangePasswordResponse,
  type LoginBody,
  type LoginResponse,
  type RegisterBody,
  type SignedInUser,
  TWO_FACTOR_MESSAGES,
} from '@wa/contract';
import { and, eq, gt, isNull } from 'drizzle-orm';
import { recordAudit, recordCounted } from '../audit/record.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { authTokens, passwordResetRequests } from '../db/schema.ts';
import { AppError, badRequest, forbidden, MESSAGES, unauthorized } from '../errors.ts';
import { newId, randomToken, sha256 } from '../ids.ts';
import { dummyPasswordHash, verifyPassword } from '../users/passwords.ts';
import { presentSignedInUser } from '../users/present.ts';
import {
  countUsers,
  findUserById,
  findUserByUsername,
  firstAdmin,
  listManagedUsers,
  type UserRow,
} from '../users/repository.ts';
import { createUser, setPassword } from '../users/service.ts';
import { LOGIN_WINDOW_MS, reserveLoginAttempt } from './throttle.ts';
import { isTwoFactorOn, verifySecondFactor } from './two-factor.ts';

export type AuthUser = Pick<
  UserRow,
  'id' | 'username' | 'name' | 'role' | 'isBulkMessagingEnabled' | 'isMultisessionSupported'
>;

/** The signed-in user as the app shows it; an API key (`ownOnly`) does not list the users an admin manages. */
export async function signedInUser(db: Db, user: UserRow & { ownOnly?: boolean }): Promise<SignedInUser> {
  const managed = user.role === 'ADMIN' && !user.ownOnly ? await listManagedUsers(db, user.id) : [];
  return presentSignedInUser(user, managed);
}

/**
 * Signs in: refused early (429) after too many failures of the account or the address. The
 * attempt is counted before the password is checked (auth/throttle.ts) and forgiven on success,
 * so parallel guesses cannot outrun the limit. With two-factor sign-in on, the password alone
 * answers 401 `twoFactor: true` so that the page asks for the code. A sign-in is audited with its
 * token; a refusal (401, 403) as 'auth.login-failed' before the answer leaves, except the
 * first step of a two-factor sign-in, which is no failure; refusals by the throttle (429) are
 * counted in one such line per account and address in the throttle's window.
 */
export async function login(db: Db, config: Config, body: LoginBody, ip: string): Promise<LoginResponse> {
  try {
    return await signIn(db, config, body, ip);
  } catch (err) {
    if (
      err instanceof AppError &&
      [401, 403, 429].includes(err.status) &&
      err.message !== TWO_FACTOR_MESSAGES.codeNeeded
    ) {
      const username = body.username.slice(0, 100);
      const user = username ? await findUserByUsername(db, username) : undefined;
      const line = {
        actor: { id: null, username },
        action: 'auth.login-failed',
        targetUserId: user?.id ?? null,
        details: { reason: err.message },
        ip,
      };
      // A refused attempt checked no secret: counted in one line per window, not a line each.
      if (err.status === 429)
        await recordCounted(db, { ...line, details: { reason: 'Too many login attempts' } }, LOGIN_WINDOW_MS);
      else await recordAudit(db, line);
    }
    throw err;
  }
}

async function signIn(db: Db, config: Config, body: LoginBody, ip: string): Promise<LoginResponse> {
  const { username, password, otp } = body;
  const attempt = await reserveLoginAttempt(db, config, username, ip);
  const user = await findUserByUsername(db, username);
  const ok = await verifyPassword(user ? user.passwordHash : await dummyPasswordHash(), password);
  if (!user || !ok) throw unauthorized(MESSAGES.invalidLogin);
  if (user.disabled) {
    await attempt.release();
    throw forbidden('This account is disabled. Please contact your administrator.');
  }
  if (isTwoFactorOn(user)) {
    if (!otp) {
      await attempt.release();
      throw new AppError('unauthorized', TWO_FACTOR_MESSAGES.codeNeeded, { twoFactor: true });
    }
    if (!(await verifySecondFactor(db, config, user, otp)))
      throw new AppError('unauthorized', TWO_FACTOR_MESSAGES.codeWrong, { twoFactor: true });
  }
  await attempt.succeeded();
  const token = await db.transaction(async (tx) => {
    await recordAudit(tx, { actor: user, action: 'auth.login', targetUserId: user.id, ip });
    return issueToken(tx, config, user.id);
  });
  return { success: true, message: 'Login successful', token, user: await signedInUser(db, user) };
}

async function issueToken(db: Db, config: Pick<Config, 'tokenTtlMs'>, userId: string): Promise<string> {
  const token = randomToken();
  await db.insert(authTokens).values({
    tokenHash: sha256(token),
    userId,
    expiresAt: new Date(Date.now() + config.tokenTtlMs),
  });
  return token;
}

/**
 * The user's own new password, once the current one (and the code) is given: like a reset, every
 * sign-in and API key of the user ends (users/service.ts setPassword); this browser gets a new token.
 */
export async function changeOwnPassword(
  db: Db,
  config: Config,
  user: { id: string; username: string },
  body: ChangePasswordBody,
  ip: string,
): Promise<ChangePasswordResponse> {
  const userId = user.id;
  await confirmIdentity(db, config, userId, { password: body.currentPassword, code: body.code }, ip);
  await setPassword(db, userId, body.newPassword, { actor: user, ip });
  return { success: true, message: 'Password changed', token: await issueToken(db, config, userId) };
}

/**
 * Asks again for the password (and the two-factor code when it is on) before something a stolen
 * token must not do alone, such as making an API key. Counted like a sign-in (auth/throttle.ts);
 * a wrong answer is a 400, not a 401: the session itself stays signed in.
 */
export async function confirmIdentity(
  db: Db,
  config: Config,
  userId: string,
  answer: { password: string; code?: string | undefined },
  ip: string,
): Promise<void> {
  const user = await findUserById(db, userId);
  if (!user) throw unauthorized(MESSAGES.invalidLogin);
  const attempt = await reserveLoginAttempt(db, config, user.username, ip);
  if (!(await verifyPassword(user.passwordHash, answer.password)))
    throw badRequest(API_KEY_MESSAGES.wrongPassword);
  if (isTwoFactorOn(user)) {
    if (!answer.code) {
      await attempt.release();
      throw badRequest(TWO_FACTOR_MESSAGES.codeNeeded);
    }
    if (!(await verifySecondFactor(db, config, user, answer.code)))
      throw badRequest(TWO_FACTOR_MESSAGES.codeWrong);
  }
  await attempt.succeeded();
}

/** The user behind a bearer token, or null for a missing, unknown, expired, revoked or disabled one. */
export async function authenticate(db: Db, token: string): Promise<UserRow | null> {
  if (!token) return null;
  const [row] = await db
    .select({ userId: authTokens.userId })
    .from(authTokens)
    .where(
      and(
        eq(authTokens.tokenHash, sha256(token)),
        isNull(authTokens.revokedAt),
        gt(authTokens.expiresAt, new Date()),
      ),
    );
  if (!row) return null;
  const user = await findUserById(db, row.userId);
  if (!user || user.disabled) return null;
  return user;
}

export async function logout(db: Db, token: string): Promise<void> {
  await db
    .update(authTokens)
    .set({ revokedAt: new Date() })
    .where(eq(authTokens.tokenHash, sha256(token)));
}

export async function register(db: Db, body: RegisterBody): Promise<UserRow> {
  const admin = await firstAdmin(db);
  return createUser(db, {
    username: body.username,
    password: body.password,
    name: body.name,
    role: 'USER',
    credits: 0,
    managedBy: admin?.id ?? null,
  });
}

/** Records a reset request for the admin to see; answers the same whether or not the user exists. */
export async function forgotPassword(db: Db, username: string): Promise<void> {
  const user = await findUserByUsername(db, username);
  if (!user) return;
  await db.insert(passwordResetRequests).values({ id: newId(), userId: user.id });
}

/**
 * The first start with no users creates the ADMIN. Returns the generated password (to print
 * once) when none was configured, or null when users already existed.
 */
export async function ensureAdmin(
  db: Db,
  config: Pick<Config, 'adminUsername' | 'adminPassword'>,
): Promise<{ username: string; password: string; generated: boolean } | null> {
  if ((await countUsers(db)) > 0) return null;
  const password = config.adminPassword ?? randomToken(12);
  try {
    await createUser(db, {
      username: config.adminUsername,
      password,
      name: 'Administrator',
      role: 'ADMIN',
      managedBy: null,
    });
  } catch (err) {
    // Another process created it at the same moment.
    if ((await countUsers(db)) > 0) return null;
    throw err;
  }
  return { username: config.adminUsername, password, generated: config.adminPassword === undefined };
}
