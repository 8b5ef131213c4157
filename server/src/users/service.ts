import type { CreateUserBody, LedgerEntry, ManagedUser, UpdateUserBody } from '@wa/contract';
import { addCredits, debitCredits } from '../credits/credits.ts';
import { type Db, isUniqueViolation } from '../db/client.ts';
import { badRequest, conflict } from '../errors.ts';
import { newId } from '../ids.ts';
import { type Actor, authorizeUser } from '../policy/access.ts';
import { hashPassword } from './passwords.ts';
import { presentManagedUser } from './present.ts';
import {
  findUserByUsername,
  insertUser,
  ledgerOf,
  listManagedUsers,
  markResetRequestsHandled,
  pendingResetRequests,
  revokeTokensOf,
  type UserRow,
  updateUser as updateUserRow,
} from './repository.ts';

export type NewUser = {
  username: string;
  password: string;
  name: string;
  role?: 'ADMIN' | 'USER';
  credits?: number;
  isBulkMessagingEnabled?: boolean;
  isMultisessionSupported?: boolean;
  managedBy: string | null;
  actorId?: string | null;
};

/** Creates a user; an opening balance is a 'grant' ledger row so the ledger always sums to the balance. */
export async function createUser(db: Db, input: NewUser): Promise<UserRow> {
  if (await findUserByUsername(db, input.username)) throw conflict(USER_MESSAGES.taken);
  const passwordHash = await hashPassword(input.password);
  // Two creations of one name at once both pass the check above; the unique index decides.
  return db
    .transaction(async (tx) => {
      const user = await insertUser(tx, {
        id: newId(),
        username: input.username,
        name: input.name,
        passwordHash,
        role: input.role ?? 'USER',
        managedBy: input.managedBy,
        isBulkMessagingEnabled: input.isBulkMessagingEnabled ?? false,
        isMultisessionSupported: input.isMultisessionSupported ?? false,
        credits: 0,
      });
      if (input.credits && input.credits > 0) {
        const balance = await addCredits(tx, user.id, input.credits, 'grant', {
          actorId: input.actorId ?? null,
          note: 'Opening balance',
        });
        return { ...user, credits: balance };
      }
      return user;
    })
    .catch((err: unknown) => {
      if (isUniqueViolation(err)) throw conflict(USER_MESSAGES.taken);
      throw err;
    });
}

export const USER_MESSAGES = { taken: 'Username is already taken' } as const;

/**
 * A new password (admin reset, CLI): the pending reset requests are handled and every token of
 * the user is revoked, so a session opened with the old password ends with it.
 */
export async function setPassword(db: Db, userId: string, password: string): Promise<void> {
  const passwordHash = await hashPassword(password);
  await db.transaction(async (tx) => {
    await updateUserRow(tx, userId, { passwordHash });
    await markResetRequestsHandled(tx, userId);
    await revokeTokensOf(tx, userId);
  });
}

export async function listUsersForAdmin(db: Db, adminId: string): Promise<ManagedUser[]> {
  const list = await listManagedUsers(db, adminId);
  const resets = await pendingResetRequests(
    db,
    list.map((u) => u.id),
  );
  return list.map((u) => presentManagedUser(u, resets.get(u.id)));
}

export async function createUserForAdmin(
  db: Db,
  adminId: string,
  body: CreateUserBody,
): Promise<ManagedUser> {
  const user = await createUser(db, {
    username: body.username,
    password: body.password,
    name: body.name,
    role: body.role ?? 'USER',
    credits: body.credits ?? 0,
    isBulkMessagingEnabled: body.is_bulk_messaging_enabled === true || body.is_bulk_messaging_enabled === 1,
    isMultisessionSupported: body.is_multisession_supported === true || body.is_multisession_supported === 1,
    managedBy: adminId,
    actorId: adminId,
  });
  return presentManagedUser(user, undefined);
}

export async function updateUserForAdmin(
  db: Db,
  admin: Actor,
  userId: string,
  body: {
    name?: string;
    password?: string;
    is_bulk_messaging_enabled?: boolean;
    is_multisession_supported?: boolean;
    disabled?: boolean;
  },
): Promise<ManagedUser> {
  await authorizeUser(db, admin, 'manage', userId);
  const values: Parameters<typeof updateUserRow>[2] = {};
  if (body.name !== undefined) values.name = body.name;
  const passwordHash = body.password !== undefined ? await hashPassword(body.password) : undefined;
  if (passwordHash !== undefined) values.passwordHash = passwordHash;
  if (body.is_bulk_messaging_enabled !== undefined)
    values.isBulkMessagingEnabled = body.is_bulk_messaging_enabled;
  if (body.is_multisession_supported !== undefined)
    values.isMultisessionSupported = body.is_multisession_supported;
  if (body.disabled !== undefined) values.disabled = body.disabled;
  const updated = await db.transaction(async (tx) => {
    const row = await updateUserRow(tx, userId, values);
    if (passwordHash !== undefined) await markResetRequestsHandled(tx, userId);
    // A new password or a disabled account ends every session opened before.
    if (passwordHash !== undefined || body.disabled === true) await revokeTokensOf(tx, userId);
    return row!;
  });
  const resets = await pendingResetRequests(db, [userId]);
  return presentManagedUser(updated, resets.get(userId));
}

export type UpdateUserInput = UpdateUserBody;

/** Adds (positive) or removes (negative) credits; a removal can never take the balance below zero. */
export async function grantCredits(
  db: Db,
  admin: Actor,
  userId: string,
  amount: number,
  note: string | undefined,
): Promise<number> {
  await authorizeUser(db, admin, 'manage', userId, 'ledger');
  if (amount > 0) return addCredits(db, userId, amount, 'grant', { actorId: admin.id, note: note ?? null });
  const balance = await debitCredits(db, userId, -amount, 'adjust', {
    actorId: admin.id,
    note: note ?? null,
  });
  if (balance === null) throw badRequest('The balance is lower than the amount to remove');
  return balance;
}

export async function ledgerForAdmin(db: Db, admin: Actor, userId: string): Promise<LedgerEntry[]> {
  await authorizeUser(db, admin, 'manage', userId, 'ledger');
  const rows = await ledgerOf(db, userId);
  return rows.map((r) => ({
    id: String(r.id),
    delta: r.delta,
    reason: r.reason,
    jobId: r.jobId,
    actor: r.actorId,
    note: r.note,
    balanceAfter: r.balanceAfter,
    createdAt: r.createdAt.toISOString(),
  }));
}
