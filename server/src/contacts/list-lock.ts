import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.ts';
import { badRequest, conflict } from '../errors.ts';
import { IMPORT_LIMITS, IMPORT_MESSAGES } from './import-limits.ts';

/**
 * Takes the user's contact-list lock for this transaction and checks there is room for one more
 * list: imports and group saves of one user run one at a time, on every node, and the list
 * limit holds under concurrency.
 */
export async function lockListsOf(tx: Db, userId: string): Promise<void> {
  const [lock] = await queryRows<{ ok: boolean }>(
    tx,
    sql`SELECT pg_try_advisory_xact_lock(hashtext(${`contact-lists:${userId}`})) AS ok`,
  );
  if (!lock?.ok) throw conflict(IMPORT_MESSAGES.importRunning);
  await assertRoomForList(tx, userId);
}

/** Refuses a new list when the user already keeps IMPORT_LIMITS.maxListsPerUser of them. */
export async function assertRoomForList(db: Db, userId: string): Promise<void> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n FROM contact_lists WHERE user_id = ${userId}`,
  );
  if (Number(row?.n ?? 0) >= IMPORT_LIMITS.maxListsPerUser) throw badRequest(IMPORT_MESSAGES.tooManyLists);
}
