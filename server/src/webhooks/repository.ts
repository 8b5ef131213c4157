import { WebhookEventName } from '@wa/contract';
import { desc, eq, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.ts';
import { webhookAttempts, webhooks } from '../db/schema.ts';

export const WEBHOOK_EVENTS = WebhookEventName.options;
export type WebhookEvent = WebhookEventName;

export type WebhookRow = typeof webhooks.$inferSelect;

/** message.status events travel in calls of up to this many; the others one a call. */
export const MESSAGE_STATUS_BATCH = 100;
/** Attempts kept per webhook for the user to see. */
export const ATTEMPTS_KEPT = 50;

export const listWebhooksOf = (db: Db, userId: string) =>
  db.select().from(webhooks).where(eq(webhooks.userId, userId)).orderBy(webhooks.createdAt);

export async function countWebhooksOf(db: Db, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(webhooks)
    .where(eq(webhooks.userId, userId));
  return row?.n ?? 0;
}

export async function findWebhook(db: Db, id: string): Promise<WebhookRow | undefined> {
  const [row] = await db.select().from(webhooks).where(eq(webhooks.id, id));
  return row;
}

export async function insertWebhook(db: Db, row: typeof webhooks.$inferInsert): Promise<WebhookRow> {
  const [created] = await db.insert(webhooks).values(row).returning();
  return created!;
}

export async function deleteWebhookRow(db: Db, id: string): Promise<void> {
  await db.delete(webhooks).where(eq(webhooks.id, id));
}

export const attemptsOf = (db: Db, webhookId: string) =>
  db
    .select()
    .from(webhookAttempts)
    .where(eq(webhookAttempts.webhookId, webhookId))
    .orderBy(desc(webhookAttempts.id))
    .limit(ATTEMPTS_KEPT);

/**
 * Owes `event` to every webhook of `userId` that subscribed to it. One statement, in the
 * caller's transaction: the event exists exactly when the change it reports was committed.
 */
export async function insertDeliveries(
  db: Db,
  userId: string,
  event: WebhookEvent,
  data: unknown[],
): Promise<void> {
  if (data.length === 0) return;
  await db.execute(sql`
    INSERT INTO webhook_deliveries (webhook_id, event, data)
    SELECT w.id, ${event}, d.value
    FROM webhooks w, jsonb_array_elements(${JSON.stringify(data)}::jsonb) d
    WHERE w.user_id = ${userId} AND ${event} = ANY (w.events)`);
}

export type ClaimedCall = {
  webhook: Pick<WebhookRow, 'id' | 'url' | 'secret'>;
  event: WebhookEvent;
  deliveries: { id: number; data: unknown; createdAt: string }[];
};

/**
 * Claims the oldest due delivery and, for message.status, up to 99 more of the same webhook.
 * Claiming pushes `next_attempt_at` past the call's lease instead of holding a lock: a process
 * that dies mid-call leaves the rows due again once the lease is over (at least once).
 */
export async function claimCall(db: Db, leaseMs: number): Promise<ClaimedCall | null> {
  return db.transaction(async (tx) => {
    const [head] = await queryRows<{ id: number; webhook_id: string; event: WebhookEvent }>(
      tx,
      sql`SELECT id, webhook_id, event FROM webhook_deliveries
          WHERE status = 'pending' AND next_attempt_at <= now()
          ORDER BY next_attempt_at, id
          LIMIT 1
          FOR UPDATE SKIP LOCKED`,
    );
    if (!head) return null;
    const limit = head.event === 'message.status' ? MESSAGE_STATUS_BATCH : 1;
    const rows = await queryRows<{ id: string; data: unknown; created_at: string }>(
      tx,
      sql`UPDATE webhook_deliveries d
          SET attempts = d.attempts + 1,
              next_attempt_at = now() + make_interval(secs => ${leaseMs / 1000})
          WHERE d.id IN (
            SELECT id FROM webhook_deliveries
            WHERE webhook_id = ${head.webhook_id} AND event = ${head.event}
              AND status = 'pending' AND next_attempt_at <= now()
              AND (${limit} > 1 OR id = ${head.id})
            ORDER BY (id = ${head.id}) DESC, id
            LIMIT ${limit}
            FOR UPDATE SKIP LOCKED)
          RETURNING d.id, d.data,
            to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at`,
    );
    const [webhook] = await tx
      .select({ id: webhooks.id, url: webhooks.url, secret: webhooks.secret })
      .from(webhooks)
      .where(eq(webhooks.id, head.webhook_id));
    if (!webhook) return null;
    return {
      webhook,
      event: head.event,
      deliveries: rows
        .map((r) => ({ id: Number(r.id), data: r.data, createdAt: r.created_at }))
        .sort((a, b) => a.id - b.id),
    };
  });
}

export type CallResult = {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
};

/**
 * Records one call: its deliveries become delivered, or due again after a backoff (doubling
 * from `retryBaseMs`, at most an hour), or failed for good once they are 24 hours old. The
 * attempt is logged and the webhook's log cut to its last 50.
 */
export async function recordCall(
  db: Db,
  call: ClaimedCall,
  result: CallResult,
  retryBaseMs: number,
): Promise<'delivered' | 'failed' | 'gave_up'> {
  const ids = call.deliveries.map((d) => d.id);
  return db.transaction(async (tx) => {
    // One recording at a time per webhook, so that cutting its log to 50 sees the others'
    // attempts (NO KEY UPDATE does not block the foreign-key checks of new deliveries).
    await tx.execute(sql`SELECT 1 FROM webhooks WHERE id = ${call.webhook.id} FOR NO KEY UPDATE`);
    let outcome: 'delivered' | 'failed' | 'gave_up' = 'delivered';
    if (result.ok) {
      await tx.execute(sql`
        UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now(), last_error = NULL
        WHERE id IN (${sql.join(ids, sql`, `)}) AND status = 'pending'`);
    } else {
      const rows = await queryRows<{ status: string }>(
        tx,
        sql`UPDATE webhook_deliveries
            SET status = CASE WHEN created_at <= now() - interval '24 hours' THEN 'failed' ELSE 'pending' END,
                next_attempt_at = now() + make_interval(
                  secs => least(${retryBaseMs}::float8 * power(2, greatest(attempts - 1, 0)), 3600000) / 1000.0
                          * (0.9 + random() * 0.2)),
                last_error = ${result.error}
            WHERE id IN (${sql.join(ids, sql`, `)}) AND status = 'pending'
            RETURNING status`,
      );
      outcome = rows.length > 0 && rows.every((r) => r.status === 'failed') ? 'gave_up' : 'failed';
    }
    await tx.insert(webhookAttempts).values({
      webhookId: call.webhook.id,
      event: call.event,
      events: ids.length,
      durationMs: Math.round(result.durationMs),
      statusCode: result.statusCode,
      ok: result.ok,
      error: result.error,
    });
    await tx.execute(sql`
      DELETE FROM webhook_attempts
      WHERE webhook_id = ${call.webhook.id}
        AND id <= (SELECT id FROM webhook_attempts WHERE webhook_id = ${call.webhook.id}
                   ORDER BY id DESC OFFSET ${ATTEMPTS_KEPT} LIMIT 1)`);
    return outcome;
  });
}

/** Forgets finished deliveries a week old (the attempts log keeps the last 50 calls); at most `limit` a call. */
export async function pruneFinishedDeliveries(db: Db, limit = 5000): Promise<number> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`DELETE FROM webhook_deliveries WHERE id IN (
          SELECT id FROM webhook_deliveries
          WHERE status <> 'pending' AND created_at < now() - interval '7 days'
          LIMIT ${limit})
        RETURNING id`,
  );
  return rows.length;
}
