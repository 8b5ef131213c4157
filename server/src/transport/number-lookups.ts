/**
 * What the Baileys transport keeps in the database beside its credentials (its storage ports,
 * baileys/socket.ts): WhatsApp's answers about numbers, shared by every node and account, and texts from LIDs no mapping resolves yet.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.ts';
import { isPhoneChat } from '../db/vocabulary-sql.ts';

/** WhatsApp's answers about numbers (digits → chat JID, null: not on WhatsApp). */
export type NumberStore = {
  /** The answers still trusted, of these numbers. */
  read(phones: string[]): Promise<Map<string, string | null>>;
  write(answers: { phone: string; jid: string | null; ttlMs: number }[]): Promise<void>;
  /** The account's next queued one-to-one numbers with no trusted answer, in the order they go. */
  upcoming(limit: number): Promise<string[]>;
};

/** A text from a LID (its user digits) that no mapping resolved. */
export type LidText = { lid: string; messageId: string; text: string };

export type LidTextStore = {
  hold(text: LidText): Promise<void>;
  /** Whether any account of the same user holds such texts (the common answer: no). */
  any(): Promise<boolean>;
  /** Removes and returns the held texts of these LIDs, of any account of the same user, oldest first. */
  take(lids: string[]): Promise<LidText[]>;
};

export function numberStore(db: Db, accountId: string): NumberStore {
  return {
    async read(phones) {
      if (phones.length === 0) return new Map();
      const rows = await queryRows<{ phone: string; jid: string | null }>(
        db,
        sql`SELECT phone, jid FROM wa_number_lookups
            WHERE phone = ANY(${sql.param(phones)}::text[]) AND expires_at > now()`,
      );
      return new Map(rows.map((r) => [r.phone, r.jid]));
    },
    async write(answers) {
      if (answers.length === 0) return;
      await db.execute(
        sql`INSERT INTO wa_number_lookups (phone, jid, checked_at, expires_at)
            SELECT a.phone, a.jid, now(), now() + a.ttl * interval '1 millisecond'
            FROM unnest(${sql.param(answers.map((a) => a.phone))}::text[],
                        ${sql.param(answers.map((a) => a.jid))}::text[],
                        ${sql.param(answers.map((a) => a.ttlMs))}::float8[]) AS a(phone, jid, ttl)
            ON CONFLICT (phone) DO UPDATE
              SET jid = EXCLUDED.jid, checked_at = EXCLUDED.checked_at, expires_at = EXCLUDED.expires_at`,
      );
    },
    async upcoming(limit) {
      // The due one-to-one recipients of the account in claim order (due_at, id: claim.ts), their
      // numbers once each; those with an answer still trusted are skipped.
      const rows = await queryRows<{ phone: string }>(
        db,
        sql`SELECT phone FROM (
              SELECT split_part(r.chat_id, '@', 1) AS phone, min(r.n) AS due
              FROM (SELECT chat_id, row_number() OVER (ORDER BY due_at, id) AS n FROM (
                      SELECT chat_id, due_at, id FROM message_job_recipients
                      WHERE session_id = ${accountId} AND status = 'queued' AND due_at <= now()
                        AND ${isPhoneChat(sql.raw('chat_id'))}
                      ORDER BY due_at, id LIMIT ${limit * 4}) q) r
              WHERE NOT EXISTS (SELECT 1 FROM wa_number_lookups n
                                WHERE n.phone = split_part(r.chat_id, '@', 1) AND n.expires_at > now())
              GROUP BY 1) x
            ORDER BY due LIMIT ${limit}`,
      );
      return rows.map((r) => r.phone);
    },
  };
}

/** The held texts of the user who owns `accountId` (a STOP to one account holds for all of theirs). */
export function lidTextStore(db: Db, accountId: string): LidTextStore {
  const sameUser = sql`session_id IN (SELECT o.session_id FROM wa_sessions o JOIN wa_sessions me
                         ON me.user_id = o.user_id WHERE me.session_id = ${accountId})`;
  return {
    async hold(t) {
      await db.execute(
        sql`INSERT INTO wa_lid_texts (session_id, message_id, lid, text)
            VALUES (${accountId}, ${t.messageId}, ${t.lid}, ${t.text}) ON CONFLICT DO NOTHING`,
      );
    },
    async any() {
      const [row] = await queryRows<{ any: boolean }>(
        db,
        sql`SELECT EXISTS (SELECT 1 FROM wa_lid_texts WHERE ${sameUser}) AS any`,
      );
      return !!row?.any;
    },
    async take(lids) {
      if (lids.length === 0) return [];
      const rows = await queryRows<{
        lid: string;
        message_id: string;
        text: string;
        received_at: Date | string;
      }>(
        db,
        sql`DELETE FROM wa_lid_texts WHERE lid = ANY(${sql.param(lids)}::text[]) AND ${sameUser}
            RETURNING lid, message_id, text, received_at`,
      );
      const at = (r: (typeof rows)[number]) => new Date(r.received_at).getTime();
      return rows
        .sort((a, b) => at(a) - at(b))
        .map((r) => ({ lid: r.lid, messageId: r.message_id, text: r.text }));
    },
  };
}

/** How long a text from an unresolved LID is held: past it, a reply is no longer one to a send. */
export const LID_TEXTS_KEEP_MS = 30 * 24 * 3_600_000;

/** Deletes answers past their time and held LID texts older than `LID_TEXTS_KEEP_MS`; returns how many. */
export async function pruneNumberLookups(db: Db): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`WITH a AS (DELETE FROM wa_number_lookups WHERE expires_at < now() RETURNING 1),
             b AS (DELETE FROM wa_lid_texts WHERE received_at < ${new Date(Date.now() - LID_TEXTS_KEEP_MS)} RETURNING 1)
        SELECT (SELECT count(*) FROM a)::int + (SELECT count(*) FROM b)::int AS n`,
  );
  return row?.n ?? 0;
}
