import {
  type LoginBody,
  type LoginResponse,
  type RegisterBody,
  type SignedInUser,
  TWO_FACTOR_MESSAGES,
} from '@wa/contract';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { authTokens, passwordResetRequests } from '../db/schema.ts';
import { AppError, forbidden, MESSAGES, unauthorized } from '../errors.ts';
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
import { createUser } from '../users/service.ts';
import { checkLoginAllowed, clearAccountFailures, recordLoginFailure } from './throttle.ts';
import { isTwoFactorOn, verifySecondFactor } from './two-factor.ts';

export type AuthUser = Pick<
  UserRow,
  'id' | 'username' | 'name' | 'role' | 'isBulkMessagingEnabled' | 'isMultisessionSupported'
>;

export async function signedInUser(db: Db, user: UserRow): Promise<SignedInUser> {
  const managed = user.role === 'ADMIN' ? await listManagedUsers(db, user.id) : [];
  return presentSignedInUser(user, managed);
}

/**
 * Signs in: refused early (429) after too many failures of the account or the address; a wrong
 * password or code is counted, a success clears the account's count. With two-factor sign-in on,
 * the password alone answers 401 `twoFactor: true` so that the page asks for the code.
 */
export async function login(db: Db, config: Config, body: LoginBody, ip: string): Promise<LoginResponse> {
  const { username, password, otp } = body;
  await checkLoginAllowed(db, config, username, ip);
  const user = await findUserByUsername(db, username);
  const ok = await verifyPassword(user ? user.passwordHash : await dummyPasswordHash(), password);
  if (!user || !ok) {
    await recordLoginFailure(db, username, ip);
    throw unauthorized(MESSAGES.invalidLogin);
  }
  if (user.disabled) throw forbidden('This account is disabled. Please contact your administrator.');
  if (isTwoFactorOn(user)) {
    if (!otp) throw new AppError('unauthorized', TWO_FACTOR_MESSAGES.codeNeeded, { twoFactor: true });
    if (!(await verifySecondFactor(db, user, otp))) {
      await recordLoginFailure(db, username, ip);
      throw new AppError('unauthorized', TWO_FACTOR_MESSAGES.codeWrong, { twoFactor: true });
    }
  }
  await clearAccountFailures(db, username);
  const token = randomToken();
  await db.insert(authTokens).values({
    tokenHash: sha256(token),
    userId: user.id,
    expiresAt: new Date(Date.now() + config.tokenTtlMs),
  });
  return { success: true, message: 'Login successful', token, user: await signedInUser(db, user) };
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
