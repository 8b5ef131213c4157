import crypto from 'node:crypto';
import { and, asc, eq, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.ts';
import { type SimulatorInboxItem, waSessions } from '../db/schema.ts';
import { newId } from '../ids.ts';

export type SessionRow = typeof waSessions.$inferSelect;
export type SessionCommand = NonNullable<SessionRow['command']>;
type SessionPatch = Partial<typeof waSessions.$inferInsert>;

/** The patch, with `status_changed_at` moved to now when it changes the status. */
const withStatusClock = (patch: SessionPatch) =>
  patch.status === undefined
    ? patch
    : {
        ...patch,
        statusChangedAt: sql`CASE WHEN ${waSessions.status} IS DISTINCT FROM ${patch.status}
                                  THEN now() ELSE ${waSessions.statusChangedAt} END`,
      };

/** Sessions a user owns, oldest first. */
export async function listSessionsOfUser(db: Db, userId: string): Promise<SessionRow[]> {
  return db
    .select()
    .from(waSessions)
    .where(eq(waSessions.userId, userId))
    .orderBy(asc(waSessions.createdAt), asc(waSessions.id));
}

export async function countSessionsOfUser(db: Db, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(waSessions)
    .where(eq(waSessions.userId, userId));
  return row?.n ?? 0;
}

/** The user's instance of `phoneNumber`, if there is one. */
export async function sessionOfUserByPhone(
  db: Db,
  userId: string,
  phoneNumber: string,
): Promise<Pick<SessionRow, 'sessionId' | 'sessionName'> | undefined> {
  const [row] = await db
    .select({ sessionId: waSessions.sessionId, sessionName: waSessions.sessionName })
    .from(waSessions)
    .where(and(eq(waSessions.userId, userId), eq(waSessions.phoneNumber, phoneNumber)))
    .limit(1);
  return row;
}

export async function findSession(db: Db, sessionId: string): Promise<SessionRow | undefined> {
  const [row] = await db.select().from(waSessions).where(eq(waSessions.sessionId, sessionId));
  return row;
}

/** A new session's id: the digits of its number and six random bytes. */
export const newSessionId = (phoneDigits: string): string =>
  `${phoneDigits}_${crypto.randomBytes(6).toString('hex')}`;

/** A session a user just created (a linked phone or a Cloud API number): PENDING, meant to be active. */
export async function insertNewSession(
  db: Db,
  values: Omit<typeof waSessions.$inferInsert, 'id' | 'status' | 'desiredState'>,
): Promise<SessionRow> {
  const [row] = await db
    .insert(waSessions)
    .values({ id: newId(), status: 'PENDING', desiredState: 'active', ...values })
    .returning();
  return row!;
}

export async function updateSession(
  db: Db,
  sessionId: string,
  patch: SessionPatch,
): Promise<SessionRow | undefined> {
  const [row] = await db
    .update(waSessions)
    .set({ ...withStatusClock(patch), updatedAt: new Date() })
    .where(eq(waSessions.sessionId, sessionId))
    .returning();
  return row;
}

/** Updates the row only while `nodeId` holds its lease, so a node that lost a session cannot overwrite it. */
export async function updateOwnedSession(
  db: Db,
  nodeId: string,
  sessionId: string,
  patch: SessionPatch,
): Promise<boolean> {
  const rows = await db
    .update(waSessions)
    .set({ ...withStatusClock(patch), updatedAt: new Date() })
    .where(and(eq(waSessions.sessionId, sessionId), eq(waSessions.ownerNode, nodeId)))
    .returning({ sessionId: waSessions.sessionId });
  return rows.length > 0;
}

/** Records the first link of the account (the warm-up counts its days from it). */
export async function markLinked(db: Db, sessionId: string): Promise<void> {
  await db
    .update(waSessions)
    .set({ linkedAt: new Date() })
    .where(and(eq(waSessions.sessionId, sessionId), isNull(waSessions.linkedAt)));
}

export async function deleteSession(db: Db, sessionId: string): Promise<void> {
  await db.delete(waSessions).where(eq(waSessions.sessionId, sessionId));
}

/** Extends the leases this node still holds; returns the sessions it still holds. */
export async function renewLeases(
  db: Db,
  nodeId: string,
  sessionIds: string[],
  ttlMs: number,
): Promise<string[]> {
  if (sessionIds.length === 0) return [];
  const rows = await db
    .update(waSessions)
    .set({ leaseExpiresAt: sql`now() + ${sql.raw(`interval '${Math.round(ttlMs)} milliseconds'`)}` })
    .where(and(inArray(waSessions.sessionId, sessionIds), eq(waSessions.ownerNode, nodeId)))
    .returning({ sessionId: waSessions.sessionId });
  return rows.map((r) => r.sessionId);
}

/**
 * Takes the sessions that should run and have no live owner: never leased, released, or whose
 * lease ran out. Rows another transaction is claiming are skipped, so two nodes never take the same one.
 */
export async function claimFreeSessions(
  db: Db,
  nodeId: string,
  ttlMs: number,
  limit = 50,
): Promise<SessionRow[]> {
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
    .from(waSessions)
    .where(
      and(
        inArray(
          waSessions.sessionId,
          rows.map((r) => r.session_id),
        ),
        eq(waSessions.ownerNode, nodeId),
      ),
    );
}

/** Gives a session up: nobody drives it until a node claims it again. */
export async function releaseLease(
  db: Db,
  nodeId: string,
  sessionId: string,
  patch: SessionPatch = {},
): Promise<void> {
  await db
    .update(waSessions)
    .set({ ...withStatusClock(patch), ownerNode: null, leaseExpiresAt: null, updatedAt: new Date() })
    .where(and(eq(waSessions.sessionId, sessionId), eq(waSessions.ownerNode, nodeId)));
}

/** The rows of the sessions this node holds, to read the orders and flags the API left there. */
export async function ownedSessionRows(db: Db, nodeId: string): Promise<SessionRow[]> {
  return db.select().from(waSessions).where(eq(waSessions.ownerNode, nodeId));
}

/** Milliseconds until the earliest lease held by another node on a session that should run runs out. */
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
export async function clearCommand(db: Db, sessionId: string, commandAt: Date): Promise<void> {
  await db
    .update(waSessions)
    .set({ command: null, commandAt: null })
    .where(and(eq(waSessions.sessionId, sessionId), eq(waSessions.commandAt, commandAt)));
}

/** Records the first time the current QR cycle was served; true when this call set it. */
export async function markQrServed(db: Db, sessionId: string): Promise<boolean> {
  const rows = await db
    .update(waSessions)
    .set({ qrServedAt: new Date() })
    .where(
      and(
        eq(waSessions.sessionId, sessionId),
        sql`${waSessions.qrServedAt} IS NULL`,
        isNotNull(waSessions.qr),
      ),
    )
    .returning({ sessionId: waSessions.sessionId });
  return rows.length > 0;
}

/** Asks the owner for a fresh group fetch unless one was asked for within `minGapMs`. */
export async function requestGroupsRefresh(db: Db, sessionId: string, minGapMs: number): Promise<boolean> {
  const cutoff = new Date(Date.now() - minGapMs);
  const rows = await db
    .update(waSessions)
    .set({ groupsRefreshRequestedAt: new Date() })
    .where(
      and(
        eq(waSessions.sessionId, sessionId),
        or(
          sql`${waSessions.groupsRefreshRequestedAt} IS NULL`,
          lt(waSessions.groupsRefreshRequestedAt, cutoff),
        ),
      ),
    )
    .returning({ sessionId: waSessions.sessionId });
  return rows.length > 0;
}

export async function firstSessionOfUser(db: Db, userId: string): Promise<string | null> {
  const [row] = await db
    .select({ sessionId: waSessions.sessionId })
    .from(waSessions)
    .where(eq(waSessions.userId, userId))
    .orderBy(waSessions.createdAt, waSessions.id)
    .limit(1);
  return row?.sessionId ?? null;
}

/** Puts a text in the simulated account's inbox for the node that drives it. */
export async function addToSimulatorInbox(
  db: Db,
  sessionId: string,
  item: SimulatorInboxItem,
): Promise<void> {
  await db
    .update(waSessions)
    .set({
      simulatorInbox: sql`coalesce(${waSessions.simulatorInbox}, '[]'::jsonb) || jsonb_build_array(${JSON.stringify(item)}::jsonb)`,
    })
    .where(eq(waSessions.sessionId, sessionId));
}

/** Takes (and empties) the inbox of a session this node holds; texts added meanwhile stay for the next take. */
export async function takeSimulatorInbox(
  db: Db,
  nodeId: string,
  sessionId: string,
): Promise<SimulatorInboxItem[]> {
  const rows = await queryRows<{ inbox: SimulatorInboxItem[] | string | null }>(
    db,
    sql`UPDATE wa_sessions s SET simulator_inbox = NULL
        FROM (SELECT session_id, simulator_inbox FROM wa_sessions
              WHERE session_id = ${sessionId} AND owner_node = ${nodeId} AND simulator_inbox IS NOT NULL
              FOR UPDATE) old
        WHERE s.session_id = old.session_id
        RETURNING old.simulator_inbox AS inbox`,
  );
  const inbox = rows[0]?.inbox;
  if (!inbox) return [];
  return typeof inbox === 'string' ? (JSON.parse(inbox) as SimulatorInboxItem[]) : inbox;
}
