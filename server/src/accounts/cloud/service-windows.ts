import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';

/**
 * Customer service windows of Cloud API accounts. Meta, "Service messages"
 * (developers.facebook.com/documentation/business-messaging/whatsapp/messages/send-messages):
 * "When a WhatsApp user messages you or calls you, a 24-hour timer called a customer service
 * window starts. If the user messages or calls you again before the timer expires, the timer
 * resets to 24 hours. […] When the window closes, you can only send pre-approved template
 * messages." A business's own message does not open or extend it.
 */
export const SERVICE_WINDOW_MS = 24 * 60 * 60_000;

/** A message from `phone` (digits) at `at` opens the window again (a late, older webhook changes nothing). */
export async function openServiceWindow(db: Db, accountId: string, phone: string, at: Date): Promise<void> {
  await db.execute(
    sql`INSERT INTO cloud_service_windows (session_id, phone, last_inbound_at)
        VALUES (${accountId}, ${phone}, ${at.toISOString()}::timestamptz)
        ON CONFLICT (session_id, phone)
        DO UPDATE SET last_inbound_at = greatest(cloud_service_windows.last_inbound_at, excluded.last_inbound_at)`,
  );
}

/** Of `phones` (digits), those whose window with the account is open now. */
export async function inServiceWindow(db: Db, accountId: string, phones: string[]): Promise<Set<string>> {
  if (phones.length === 0) return new Set();
  const rows = await queryRows<{ phone: string }>(
    db,
    sql`SELECT phone FROM cloud_service_windows
        WHERE session_id = ${accountId} AND phone = ANY(${sql.param(phones)}::text[])
          AND last_inbound_at > now() - ${SERVICE_WINDOW_MS}::integer * interval '1 millisecond'`,
  );
  return new Set(rows.map((r) => r.phone));
}
