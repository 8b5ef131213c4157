import type { CreateUserBody, LedgerEntry, ManagedUser, UpdateUserBody } from '@wa/contract';
import { type AuditBy, recordAudit } from '../audit/record.ts';
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
  revokeKeysOf,
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

/** What an admin or the CLI sent, never the password itself (a new one shows as 'changed'). */
function withoutPassword(body: object, markChange: boolean): Record<string, unknown> {
  const { password, ...rest } = body as Record<string, unknown>;
  return password === undefined || !markChange ? rest : { ...rest, password: 'changed' };
}

/**
 * Creates a user; an opening balance is a 'grant' ledger row so the ledger always sums to the
 * balance. `audit`: the 'user.create' line, written in the same transaction.
 */
export async function createUser(
  db: Db,
  input: NewUser,
  audit?: AuditBy & { details: Record<string, unknown> },
): Promise<UserRow> {
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
      if (audit) await recordAudit(tx, { ...audit, action: 'user.create', targetUserId: user.id });
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
 * A new password (admin reset, CLI, the user's own change): the pending reset requests are
 * handled and every token and API key of the user is revoked, so nothing opened with the old
 * password outlives it.
 */
export async function setPassword(db: Db, userId: string, password: string, audit?: AuditBy): Promise<void> {
  const passwordHash = await hashPassword(password);
  await db.transaction(async (tx) => {
    if (audit)
      await recordAudit(tx, {
        ...audit,
        action: 'user.update',
        targetUserId: userId,
        details: { password: 'changed' },
      });
    await updateUserRow(tx, userId, { passwordHash });
    await markResetRequestsHandled(tx, userId);
    await revokeTokensOf(tx, userId);
    await revokeKeysOf(tx, userId, 'password');
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
  by: AuditBy & { actor: { id: string } },
  body: CreateUserBody,
): Promise<ManagedUser> {
  const adminId = by.actor.id;
  const details = withoutPassword(body, false);
  const user = await createUser(
    db,
    {
      username: body.username,
      password: body.password,
      name: body.name,
      role: body.role ?? 'USER',
      credits: body.credits ?? 0,
      isBulkMessagingEnabled: body.is_bulk_messaging_enabled === true || body.is_bulk_messaging_enabled === 1,
      isMultisessionSupported:
        body.is_multisession_supported === true || body.is_multisession_supported === 1,
      managedBy: adminId,
      actorId: adminId,
    },
    { ...by, details },
  );
  return presentManagedUser(user, undefined);
}

export async function updateUserForAdmin(
  db: Db,
  admin: Actor & { username: string },
  ip: string | null,
  userId: string,
  body: {
    name?: string;
    password?: string;
    is_bulk_messaging_enabled?: boolean;
    is_multisession_supported?: boolean;
    disabled?: boolean;
    consent_required?: boolean;
    opt_out_confirm?: boolean;
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
  if (body.consent_required !== undefined) values.consentRequired = body.consent_required;
  if (body.opt_out_confirm !== undefined) values.optOutConfirm = body.opt_out_confirm;
  const updated = await db.transaction(async (tx) => {
    const row = await updateUserRow(tx, userId, values);
    if (passwordHash !== undefined) await markResetRequestsHandled(tx, userId);
    // A new password or a disabled account ends every session and API key made before.
    if (passwordHash !== undefined || body.disabled === true) await revokeTokensOf(tx, userId);
    if (body.disabled === true) await revokeKeysOf(tx, userId, 'disabled');
    else if (passwordHash !== undefined) await revokeKeysOf(tx, userId, 'password');
    await recordAudit(tx, {
      actor: admin,
      ip,
      action: 'user.update',
      targetUserId: userId,
      details: withoutPassword(body, true),
    });
    return row!;
  });
  const resets = await pendingResetRequests(db, [userId]);
  return presentManagedUser(updated, resets.get(userId));
}

export type UpdateUserInput = UpdateUserBody;

/**
 * Adds (positive) or removes (negative) credits; a removal can never take the balance below zero.
 * The 'user.credits' audit line is written with the ledger row.
 */
export async function grantCredits(
  db: Db,
  admin: Actor & { username: string },
  ip: string | null,
  userId: string,
  amount: number,
  note: string | undefined,
): Promise<number> {
  await authorizeUser(db, admin, 'manage', userId, 'ledger');
  const balance = await changeCredits(
    db,
    userId,
    amount,
    { actorId: admin.id, note: note ?? null },
    {
      actor: admin,
      ip,
      details: note === undefined ? { amount } : { amount, note },
    },
  );
  if (balance === null) throw badRequest('The balance is lower than the amount to remove');
  return balance;
}

/**
 * A grant (positive) or an adjustment (negative) of a balance, with its ledger row and its
 * 'user.credits' audit line (the balance after added to `details`), in one transaction. Null, and
 * nothing written, when a removal is more than the balance.
 */
export function changeCredits(
  db: Db,
  userId: string,
  amount: number,
  meta: { actorId?: string | null; note: string | null },
  audit: AuditBy & { details: Record<string, unknown> },
): Promise<number | null> {
  return db.transaction(async (tx) => {
    const balance =
      amount > 0
        ? await addCredits(tx, userId, amount, 'grant', meta)
        : await debitCredits(tx, userId, -amount, 'adjust', meta);
    if (balance === null) return null;
    await recordAudit(tx, {
      ...audit,
      action: 'user.credits',
      targetUserId: userId,
      details: { ...audit.details, balance },
    });
    return balance;
  });
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
