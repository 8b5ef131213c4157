import crypto from 'node:crypto';
import { and, asc, eq, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.ts';
import { accounts, type SimulatorInboxItem } from '../db/schema.ts';
import { newId } from '../ids.ts';

export type AccountRow = typeof accounts.$inferSelect;
export type AccountCommand = NonNullable<AccountRow['command']>;
type AccountPatch = Partial<typeof accounts.$inferInsert>;

/** The patch, with `status_changed_at` moved to now when it changes the status. */
const withStatusClock = (patch: AccountPatch) =>
  patch.status === undefined
    ? patch
    : {
        ...patch,
        statusChangedAt: sql`CASE WHEN ${accounts.status} IS DISTINCT FROM ${patch.status}
                                  THEN now() ELSE ${accounts.statusChangedAt} END`,
      };

/** Accounts a user owns, oldest first. */
export async function listAccountsOfUser(db: Db, userId: string): Promise<AccountRow[]> {
  return db
    .select()
    .from(accounts)
    .where(eq(accounts.userId, userId))
    .orderBy(asc(accounts.createdAt), asc(accounts.id));
}

export async function countAccountsOfUser(db: Db, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(accounts)
    .where(eq(accounts.userId, userId));
  return row?.n ?? 0;
}

/** The user's instance of `phoneNumber`, if there is one. */
export async function accountOfUserByPhone(
  db: Db,
  userId: string,
  phoneNumber: string,
): Promise<Pick<AccountRow, 'accountId' | 'name'> | undefined> {
  const [row] = await db
    .select({ accountId: accounts.accountId, name: accounts.name })
    .from(accounts)
    .where(and(eq(accounts.userId, userId), eq(accounts.phoneNumber, phoneNumber)))
    .limit(1);
  return row;
}

export async function findAccount(db: Db, accountId: string): Promise<AccountRow | undefined> {
  const [row] = await db.select().from(accounts).where(eq(accounts.accountId, accountId));
  return row;
}

/** A new account's id: the digits of its number and six random bytes. */
export const newAccountId = (phoneDigits: string): string =>
  `${phoneDigits}_${crypto.randomBytes(6).toString('hex')}`;

/** An account a user just created (a linked phone or a Cloud API number): PENDING, meant to be active. */
export async function insertNewAccount(
  db: Db,
  values: Omit<typeof accounts.$inferInsert, 'id' | 'status' | 'desiredState'>,
): Promise<AccountRow> {
  const [row] = await db
    .insert(accounts)
    .values({ id: newId(), status: 'PENDING', desiredState: 'active', ...values })
    .returning();
  return row!;
}

export async function updateAccount(
  db: Db,
  accountId: string,
  patch: AccountPatch,
): Promise<AccountRow | undefined> {
  const [row] = await db
    .update(accounts)
    .set({ ...withStatusClock(patch), updatedAt: new Date() })
    .where(eq(accounts.accountId, accountId))
    .returning();
  return row;
}

/** Updates the row only while `nodeId` holds its lease, so a node that lost an account cannot overwrite it. */
export async function updateOwnedAccount(
  db: Db,
  nodeId: string,
  accountId: string,
  patch: AccountPatch,
): Promise<boolean> {
  const rows = await db
    .update(accounts)
    .set({ ...withStatusClock(patch), updatedAt: new Date() })
    .where(and(eq(accounts.accountId, accountId), eq(accounts.ownerNode, nodeId)))
    .returning({ accountId: accounts.accountId });
  return rows.length > 0;
}

/** Records the first link of the account (the warm-up counts its days from it). */
export async function markLinked(db: Db, accountId: string): Promise<void> {
  await db
    .update(accounts)
    .set({ linkedAt: new Date() })
    .where(and(eq(accounts.accountId, accountId), isNull(accounts.linkedAt)));
}

export async function deleteAccount(db: Db, accountId: string): Promise<void> {
  await db.delete(accounts).where(eq(accounts.accountId, accountId));
}

/** Extends the leases this node still holds; returns the accounts it still holds. */
export async function renewLeases(
  db: Db,
  nodeId: string,
  accountIds: string[],
  ttlMs: number,
): Promise<string[]> {
  if (accountIds.length === 0) return [];
  const rows = await db
    .update(accounts)
    .set({ leaseExpiresAt: sql`now() + ${sql.raw(`interval '${Math.round(ttlMs)} milliseconds'`)}` })
    .where(and(inArray(accounts.accountId, accountIds), eq(accounts.ownerNode, nodeId)))
    .returning({ accountId: accounts.accountId });
  return rows.map((r) => r.accountId);
}

/**
 * Takes the accounts that should run and have no live owner: never leased, released, or whose
 * lease ran out. Rows another transaction is claiming are skipped, so two nodes never take the same one.
 */
export async function claimFreeAccounts(
  db: Db,
  nodeId: string,
  ttlMs: number,
  limit = 50,
): Promise<AccountRow[]> {
  const interval = sql.raw(`interval '${Math.round(ttlMs)} milliseconds'`);
  const rows = await queryRows<{ session_id: string }>(
    db,
    sql`UPDATE wa_sessions SET owner_node = ${nodeId}, lease_expires_at = now() + ${interval}, updated_at = now()
        WHERE session_id IN (
          SELECT session_id FROM wa_sessions
          WHERE desired_state = 'active'
            AND (owner_node IS NULL OR lease_expires_at IS NULL OR lease_expires_at < now())
          ORDER BY created_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
        RETURNING session_id`,
  );
  if (rows.length === 0) return [];
  return db
    .select()
    .from(accounts)
    .where(
      and(
        inArray(
          accounts.accountId,
          rows.map((r) => r.session_id),
        ),
        eq(accounts.ownerNode, nodeId),
      ),
    );
}

/** Gives an account up: nobody drives it until a node claims it again. */
export async function releaseLease(
  db: Db,
  nodeId: string,
  accountId: string,
  patch: AccountPatch = {},
): Promise<void> {
  await db
    .update(accounts)
    .set({ ...withStatusClock(patch), ownerNode: null, leaseExpiresAt: null, updatedAt: new Date() })
    .where(and(eq(accounts.accountId, accountId), eq(accounts.ownerNode, nodeId)));
}

/** The rows of the accounts this node holds, to read the orders and flags the API left there. */
export async function ownedAccountRows(db: Db, nodeId: string): Promise<AccountRow[]> {
  return db.select().from(accounts).where(eq(accounts.ownerNode, nodeId));
}

/** Milliseconds until the earliest lease held by another node on an account that should run runs out. */
export async function msUntilNextForeignExpiry(db: Db, nodeId: string): Promise<number | null> {
  const rows = await queryRows<{ ms: number | string | null }>(
    db,
    sql`SELECT (extract(epoch FROM min(lease_expires_at) - now()) * 1000)::float8 AS ms FROM wa_sessions
        WHERE desired_state = 'active' AND owner_node IS NOT NULL AND owner_node <> ${nodeId}
          AND lease_expires_at IS NOT NULL`,
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? null : Number(ms);
}

/** Clears an order once it was carried out, unless a newer order replaced it meanwhile. */
export async function clearCommand(db: Db, accountId: string, commandAt: Date): Promise<void> {
  await db
    .update(accounts)
    .set({ command: null, commandAt: null })
    .where(and(eq(accounts.accountId, accountId), eq(accounts.commandAt, commandAt)));
}

/** Records the first time the current QR cycle was served; true when this call set it. */
export async function markQrServed(db: Db, accountId: string): Promise<boolean> {
  const rows = await db
    .update(accounts)
    .set({ qrServedAt: new Date() })
    .where(
      and(eq(accounts.accountId, accountId), sql`${accounts.qrServedAt} IS NULL`, isNotNull(accounts.qr)),
    )
    .returning({ accountId: accounts.accountId });
  return rows.length > 0;
}

/** Asks the owner for a fresh group fetch unless one was asked for within `minGapMs`. */
export async function requestGroupsRefresh(db: Db, accountId: string, minGapMs: number): Promise<boolean> {
  const cutoff = new Date(Date.now() - minGapMs);
  const rows = await db
    .update(accounts)
    .set({ groupsRefreshRequestedAt: new Date() })
    .where(
      and(
        eq(accounts.accountId, accountId),
        or(sql`${accounts.groupsRefreshRequestedAt} IS NULL`, lt(accounts.groupsRefreshRequestedAt, cutoff)),
      ),
    )
    .returning({ accountId: accounts.accountId });
  return rows.length > 0;
}

export async function firstAccountOfUser(db: Db, userId: string): Promise<string | null> {
  const [row] = await db
    .select({ accountId: accounts.accountId })
    .from(accounts)
    .where(eq(accounts.userId, userId))
    .orderBy(accounts.createdAt, accounts.id)
    .limit(1);
  return row?.accountId ?? null;
}

/** Puts a text in the simulated account's inbox for the node that drives it. */
export async function addToSimulatorInbox(
  db: Db,
  accountId: string,
  item: SimulatorInboxItem,
): Promise<void> {
  await db
    .update(accounts)
    .set({
      simulatorInbox: sql`coalesce(${accounts.simulatorInbox}, '[]'::jsonb) || jsonb_build_array(${JSON.stringify(item)}::jsonb)`,
    })
    .where(eq(accounts.accountId, accountId));
}

/** Takes (and empties) the inbox of an account this node holds; texts added meanwhile stay for the next take. */
export async function takeSimulatorInbox(
  db: Db,
  nodeId: string,
  accountId: string,
): Promise<SimulatorInboxItem[]> {
  const rows = await queryRows<{ inbox: SimulatorInboxItem[] | string | null }>(
    db,
    sql`UPDATE wa_sessions s SET simulator_inbox = NULL
        FROM (SELECT session_id, simulator_inbox FROM wa_sessions
              WHERE session_id = ${accountId} AND owner_node = ${nodeId} AND simulator_inbox IS NOT NULL
              FOR UPDATE) old
        WHERE s.session_id = old.session_id
        RETURNING old.simulator_inbox AS inbox`,
  );
  const inbox = rows[0]?.inbox;
  if (!inbox) return [];
  return typeof inbox === 'string' ? (JSON.parse(inbox) as SimulatorInboxItem[]) : inbox;
}
