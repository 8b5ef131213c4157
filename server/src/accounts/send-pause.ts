import { and, eq, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.ts';
import { accounts } from '../db/schema.ts';
import type { QuotaUpdate } from '../transport/types.ts';
import { recordAccountEvent } from './health/repository.ts';
import { findAccount } from './repository.ts';

/**
 * The account's pause of one-to-one sends (error 463, WhatsApp's new-chat cap; docs/decisions.md,
 * sending pace): the only writer of `send_paused`. The engine pauses on a refused send, the
 * account's quota events pause and lift it, the user lifts it, and the sweep lifts the pauses
 * whose time has come. Group sends go on while it holds.
 */

/**
 * The engine's pause on a refused send (a 463, WhatsApp's cap): a live pause the account already
 * has stays as it is. The account's own report of the same refusal (its quota event, with
 * WhatsApp's timelock when it answers) is the later word, and the two writes race on separate
 * connections: the refused send's own estimate must not overwrite it.
 */
export async function pauseOnRefusal(
  db: Db,
  accountId: string,
  reason: string,
  until: Date | null,
): Promise<void> {
  const live = sql`${accounts.sendPaused} AND ${accounts.sendPausedUntil} > now()`;
  await db
    .update(accounts)
    .set({
      sendPaused: true,
      statusReason: sql`CASE WHEN ${live} THEN ${accounts.statusReason} ELSE ${reason} END`,
      sendPausedUntil: sql`CASE WHEN ${live} THEN ${accounts.sendPausedUntil} ELSE ${until?.toISOString() ?? null}::timestamptz END`,
      updatedAt: new Date(),
    })
    .where(eq(accounts.accountId, accountId));
}

/**
 * Pauses the account's one-to-one sends with the reason shown to the user, until `until` when
 * WhatsApp said; with no end given, an end time the account already has is kept (WhatsApp's
 * answer may land first). `ownedBy`: only while that node holds the account's lease.
 */
export async function pauseSending(
  db: Db,
  accountId: string,
  reason: string,
  until: Date | null,
  ownedBy?: string,
): Promise<void> {
  await db
    .update(accounts)
    .set({
      sendPaused: true,
      statusReason: reason,
      sendPausedUntil:
        until ??
        sql`CASE WHEN ${accounts.sendPaused} AND ${accounts.sendPausedUntil} > now()
                 THEN ${accounts.sendPausedUntil} END`,
      updatedAt: new Date(),
    })
    .where(
      and(
        eq(accounts.accountId, accountId),
        ownedBy === undefined ? undefined : eq(accounts.ownerNode, ownedBy),
      ),
    );
}

/** Lifts the account's pause now (`ownedBy` as above). True when there was one. */
export async function liftSendPause(db: Db, accountId: string, ownedBy?: string): Promise<boolean> {
  const rows = await queryRows<{ session_id: string }>(
    db,
    sql`UPDATE wa_sessions SET send_paused = false, send_paused_until = NULL, status_reason = NULL, updated_at = now()
        WHERE session_id = ${accountId} AND send_paused
          ${ownedBy === undefined ? sql`` : sql`AND owner_node = ${ownedBy}`}
        RETURNING session_id`,
  );
  return rows.length > 0;
}

/** Ends the pauses whose time has come (their recipients are claimed again). Returns their accounts. */
export async function liftEndedPauses(db: Db): Promise<string[]> {
  const rows = await queryRows<{ session_id: string }>(
    db,
    sql`UPDATE wa_sessions SET send_paused = false, send_paused_until = NULL, status_reason = NULL,
                               updated_at = now()
        WHERE send_paused AND send_paused_until <= now()
        RETURNING session_id`,
  );
  return rows.map((r) => r.session_id);
}

/**
 * The circuit breaker's pause (accounts/health): as pauseSending, but only when nothing
 * pauses the account now, so that a restriction WhatsApp gave keeps its own reason and end.
 * True when it paused.
 */
export async function pauseToProtect(
  db: Db,
  accountId: string,
  reason: string,
  until: Date,
  ownedBy?: string,
): Promise<boolean> {
  const rows = await queryRows<{ session_id: string }>(
    db,
    sql`UPDATE wa_sessions SET send_paused = true, send_paused_until = ${until.toISOString()}::timestamptz,
                               status_reason = ${reason}, updated_at = now()
        WHERE session_id = ${accountId}
          AND NOT (send_paused AND (send_paused_until IS NULL OR send_paused_until > now()))
          ${ownedBy === undefined ? sql`` : sql`AND owner_node = ${ownedBy}`}
        RETURNING session_id`,
  );
  return rows.length > 0;
}

/**
 * The account's own word on its new-chat cap (its transport's quota event), on the node holding
 * its lease: a cap pauses one-to-one sends until the time WhatsApp gives (or the user resumes),
 * and a new restriction counts against the account's health once (not each later word on its
 * end); the cap's end lifts the pause, and the engine's loop goes on (docs/decisions.md, Sending
 * pace). True when the account's state changed (the runtime tells the engine).
 */
export async function takeQuota(db: Db, accountId: string, q: QuotaUpdate, nodeId: string): Promise<boolean> {
  if (!q.capped) return liftSendPause(db, accountId, nodeId);
  const before = await findAccount(db, accountId);
  if (!before?.sendPaused || before.statusReason !== q.reason)
    await recordAccountEvent(db, accountId, 'restricted', q.reason);
  await pauseSending(
    db,
    accountId,
    q.reason ?? "Paused: WhatsApp's new-chat limit was reached",
    q.until,
    nodeId,
  );
  return true;
}
