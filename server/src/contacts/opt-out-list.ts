import {
  type Address,
  chatIdOfAddress,
  displayAddress,
  isBsuid,
  type OptOut,
  type OptOutSource,
} from '@wa/contract';
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.ts';
import { notFound } from '../errors.ts';
import { queueWebhookEvents } from '../webhooks/service.ts';
import { addressesOfPerson, optedOutAddresses, optedOutSendable } from './people.ts';
import { phoneOf } from './personal-data.ts';
import { CONTACT_MESSAGES } from './service.ts';

/**
 * A user's opt-out list (docs/decisions.md, Opt-outs): addresses they must not message any more.
 * A row names the address the opt-out came by (a number typed or imported, or the phone, LID or
 * BSUID a STOP came from); a person is opted out when any of their addresses is (docs/people.md).
 */

const BATCH = 5000;

/** The list, newest first; each row shows the person by their number where known, else username, else a short id. */
export async function listOptOuts(db: Db, userId: string): Promise<OptOut[]> {
  const rows = await queryRows<{
    kind: Address['kind'];
    value: string;
    phone: string | null;
    username: string | null;
    source: OptOutSource;
    created_at: Date | string;
    keyword: string | null;
    language: string | null;
    message: string | null;
  }>(
    db,
    sql`SELECT o.address_kind AS kind, o.phone_number AS value, o.source, o.created_at, o.keyword,
               o.language, o.message,
               CASE WHEN o.address_kind = 'phone' THEN o.phone_number ELSE (
                 SELECT min(p.value) FROM person_addresses a
                 JOIN person_addresses p ON p.person_id = a.person_id AND p.kind = 'phone'
                 WHERE a.user_id = o.user_id AND a.kind = o.address_kind AND a.value = o.phone_number) END AS phone,
               (SELECT min(p.value) FROM person_addresses a
                JOIN person_addresses p ON p.person_id = a.person_id AND p.kind = 'username'
                WHERE a.user_id = o.user_id AND a.kind = o.address_kind AND a.value = o.phone_number) AS username
        FROM opt_outs o WHERE o.user_id = ${userId}
        ORDER BY o.created_at DESC`,
  );
  return rows.map((r) => ({
    phoneNumber: displayAddress(chatIdOfAddress(r) ?? r.value, r),
    ...(r.kind === 'phone' ? {} : { address: { kind: r.kind, value: r.value } }),
    source: r.source,
    createdAt: new Date(r.created_at).toISOString(),
    keyword: r.keyword,
    language: r.language,
    message: r.message,
  }));
}

/** What a reply's opt-out keeps: the word it matched and the message as received. */
export type OptOutDetail = {
  keyword: string;
  language: string;
  message: string;
  messageId: string | null;
  sessionId: string | null;
};

/** Messages longer than this are kept cut (a whole-message match is at most 60 characters). */
const MAX_KEPT_MESSAGE = 500;

const keptOf = (detail: OptOutDetail | undefined) =>
  detail
    ? {
        keyword: detail.keyword,
        language: detail.language,
        message: detail.message.slice(0, MAX_KEPT_MESSAGE),
        message_id: detail.messageId,
        session_id: detail.sessionId,
      }
    : { keyword: null, language: null, message: null, message_id: null, session_id: null };

/**
 * Puts addresses on the user's opt-out list, in the caller's transaction (those already there
 * keep their first time and source), and queues an `optout` webhook event per new row. Returns the
 * addresses newly added.
 */
async function insertOptOuts(
  tx: Db,
  userId: string,
  addresses: Address[],
  source: OptOutSource,
  detail?: OptOutDetail,
): Promise<Address[]> {
  const kept = keptOf(detail);
  const added: Address[] = [];
  for (let i = 0; i < addresses.length; i += BATCH) {
    const part = addresses.slice(i, i + BATCH);
    const rows = await queryRows<{ kind: Address['kind']; value: string; created_at: Date | string }>(
      tx,
      sql`INSERT INTO opt_outs (user_id, address_kind, phone_number, source, keyword, language, message,
                                message_id, session_id)
          SELECT ${userId}, x.kind, x.value, ${source}, ${kept.keyword}, ${kept.language}, ${kept.message},
                 ${kept.message_id}, ${kept.session_id}
          FROM unnest(${sql.param(part.map((a) => a.kind))}::text[],
                      ${sql.param(part.map((a) => a.value))}::text[]) AS x(kind, value)
          ON CONFLICT DO NOTHING
          RETURNING address_kind AS kind, phone_number AS value, created_at`,
    );
    added.push(...rows.map((r) => ({ kind: r.kind, value: r.value })));
    if (rows.length > 0)
      await queueWebhookEvents(
        tx,
        userId,
        'optout',
        rows.map((r) => ({
          phone: r.kind === 'phone' ? r.value : displayAddress(chatIdOfAddress(r) ?? r.value),
          source,
          at: new Date(r.created_at).toISOString(),
          ...(r.kind === 'phone' ? {} : { address: { kind: r.kind, value: r.value } }),
          ...(detail ? { keyword: detail.keyword } : {}),
        })),
      );
  }
  return added;
}

/** Puts numbers (as typed: parsed by the phone rule) on the user's opt-out list; returns those newly added. */
export async function addOptOuts(
  db: Db,
  userId: string,
  input: string[],
  source: OptOutSource,
  defaultCallingCode: string,
  detail?: OptOutDetail,
): Promise<string[]> {
  const numbers = [...new Set(input.map((cell) => phoneOf(cell, defaultCallingCode)))];
  return db.transaction(async (tx) => {
    const added = await insertOptOuts(
      tx,
      userId,
      numbers.map((value) => ({ kind: 'phone' as const, value })),
      source,
      detail,
    );
    return added.map((a) => a.value);
  });
}

/**
 * A person opted out by writing from `address` (a phone, a LID or a BSUID), in the caller's
 * transaction. Returns whether the person was newly opted out: false when they already were, by
 * this address or any other of theirs (a repeated STOP, or one from their other kind of account).
 */
export async function optOutAddress(
  tx: Db,
  userId: string,
  address: Address,
  source: OptOutSource,
  detail?: OptOutDetail,
): Promise<boolean> {
  const [already] = await queryRows<{ yes: boolean }>(
    tx,
    sql`SELECT EXISTS (SELECT 1 FROM (${optedOutAddresses(userId)}) oo
                       WHERE oo.kind = ${address.kind} AND oo.value = ${address.value}) AS yes`,
  );
  const added = await insertOptOuts(tx, userId, [address], source, detail);
  return added.length > 0 && !already?.yes;
}

/**
 * Takes a person off the list, named by a number (as typed), a BSUID or a LID's digits (the
 * `address.value` the list gives): the rows of every address of their person (a STOP from their
 * LID or BSUID too), so that the person may be messaged again.
 */
export async function removeOptOut(
  db: Db,
  userId: string,
  cell: string,
  defaultCallingCode: string,
): Promise<void> {
  let phone: string;
  try {
    phone = phoneOf(cell, defaultCallingCode);
  } catch {
    phone = cell;
  }
  const named: Address[] = [{ kind: 'phone', value: phone }];
  if (isBsuid(cell)) named.push({ kind: 'bsuid', value: cell });
  else if (/^[0-9]+$/.test(cell)) named.push({ kind: 'lid', value: cell });
  const addresses = (await Promise.all(named.map((a) => addressesOfPerson(db, userId, a)))).flat();
  const rows = await queryRows<{ n: number }>(
    db,
    sql`WITH gone AS (
          DELETE FROM opt_outs o
          USING unnest(${sql.param(addresses.map((a) => a.kind))}::text[],
                       ${sql.param(addresses.map((a) => a.value))}::text[]) AS x(kind, value)
          WHERE o.user_id = ${userId} AND o.address_kind = x.kind AND o.phone_number = x.value
          RETURNING 1)
        SELECT count(*)::int AS n FROM gone`,
  );
  if (Number(rows[0]?.n ?? 0) === 0) throw notFound(CONTACT_MESSAGES.optOutNotFound);
}

/**
 * Numbers (and BSUIDs) of `numbers` that are opted out, by themselves or by another address of
 * their person. A
 * user's list is usually far shorter than a big send: it is read whole and matched here when it
 * is (one index range), else the numbers are looked up in it; either way one statement.
 */
export async function optedOutAmong(db: Db, userId: string, numbers: string[]): Promise<Set<string>> {
  if (numbers.length === 0) return new Set();
  const all = await queryRows<{ n: string }>(
    db,
    sql`SELECT value AS n FROM (${optedOutSendable(userId)}) op LIMIT ${numbers.length + 1}`,
  );
  if (all.length <= numbers.length) {
    // The (short) list as a set, the send's numbers looked up in it.
    const listed = new Set(all.map((r) => r.n));
    return listed.size === 0 ? listed : new Set(numbers.filter((n) => listed.has(n)));
  }
  const rows = await queryRows<{ n: string }>(
    db,
    sql`SELECT value AS n FROM (${optedOutSendable(userId)}) op WHERE value = ANY(${sql.param(numbers)}::text[])`,
  );
  return new Set(rows.map((r) => r.n));
}
