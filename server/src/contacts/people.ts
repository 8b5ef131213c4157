import { type Address, addressOfChatId, chatIdOfAddress } from '@wa/contract';
import { type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.ts';
import { newId } from '../ids.ts';

/**
 * A user's people and their addresses (docs/people.md). An address that no `person_addresses`
 * row names is a person of its own; rows are written when WhatsApp shows that addresses belong
 * together (a LID's number, a Cloud webhook with both `user_id` and `wa_id`, a username beside its
 * BSUID), never on a guess. Matching a person is one join: an address, its person, that person's
 * other addresses.
 */

/**
 * Every address of the user that is opted out, itself or through its person, as rows
 * `(kind, value)`: the opted-out addresses, and every address of a person one of whose addresses
 * is. Bounded by the user's opt-out list (one index range), not by the size of a send.
 */
export const optedOutAddresses = (userId: string): SQL =>
  sql`SELECT o.address_kind AS kind, o.phone_number AS value FROM opt_outs o WHERE o.user_id = ${userId}
      UNION
      SELECT p.kind, p.value FROM opt_outs o
        JOIN person_addresses a ON a.user_id = o.user_id AND a.kind = o.address_kind AND a.value = o.phone_number
        JOIN person_addresses p ON p.person_id = a.person_id
      WHERE o.user_id = ${userId}`;

/**
 * The opted-out addresses a recipient or a contact is named by, numbers and BSUIDs (rows
 * `value`; a BSUID has a dot, so it is never taken for a number).
 */
export const optedOutSendable = (userId: string): SQL =>
  sql`SELECT value FROM (${optedOutAddresses(userId)}) oo WHERE kind IN ('phone', 'bsuid')`;

/** The addresses of the person `address` belongs to (itself first; only itself when none is joined to it). */
export async function addressesOfPerson(db: Db, userId: string, address: Address): Promise<Address[]> {
  const rows = await queryRows<Address>(
    db,
    sql`SELECT p.kind, p.value FROM person_addresses a
        JOIN person_addresses p ON p.person_id = a.person_id
        WHERE a.user_id = ${userId} AND a.kind = ${address.kind} AND a.value = ${address.value}
        ORDER BY p.kind, p.value`,
  );
  const others = rows.filter((r) => !(r.kind === address.kind && r.value === address.value));
  return [address, ...others];
}

/**
 * For the chat ids of people known by LID or BSUID among `chatIds`: the number and the username
 * WhatsApp showed to be the same person's, where it did (what they are shown by). One statement.
 */
export async function knownOfChatIds(
  db: Db,
  userId: string,
  chatIds: string[],
): Promise<Map<string, { phone: string | null; username: string | null }>> {
  const hidden = chatIds
    .map((chatId) => ({ chatId, address: addressOfChatId(chatId) }))
    .filter((x) => x.address && x.address.kind !== 'phone');
  if (hidden.length === 0) return new Map();
  const rows = await queryRows<{
    kind: string;
    value: string;
    phone: string | null;
    username: string | null;
  }>(
    db,
    sql`SELECT a.kind, a.value,
               min(p.value) FILTER (WHERE p.kind = 'phone') AS phone,
               min(p.value) FILTER (WHERE p.kind = 'username') AS username
        FROM person_addresses a JOIN person_addresses p ON p.person_id = a.person_id
        JOIN unnest(${sql.param(hidden.map((h) => h.address!.kind))}::text[],
                    ${sql.param(hidden.map((h) => h.address!.value))}::text[]) AS x(kind, value)
          ON a.kind = x.kind AND a.value = x.value
        WHERE a.user_id = ${userId}
        GROUP BY a.kind, a.value`,
  );
  const byAddress = new Map(rows.map((r) => [`${r.kind}:${r.value}`, r]));
  const known = new Map<string, { phone: string | null; username: string | null }>();
  for (const h of hidden) {
    const r = byAddress.get(`${h.address!.kind}:${h.address!.value}`);
    if (r) known.set(h.chatId, { phone: r.phone, username: r.username });
  }
  return known;
}

/** The chat ids that write to these addresses (a username has none). */
export function chatIdsOf(addresses: Address[]): string[] {
  return addresses.map(chatIdOfAddress).filter((c): c is string => c !== null);
}

/**
 * WhatsApp showed that these addresses are one person's: they become one person of the user,
 * merging the people they already belonged to (the addresses of the others are repointed to one,
 * the others deleted), in the caller's transaction. The user's people change one link at a time
 * (a transaction lock per user). Returns the person's id; null when fewer than two addresses are
 * given.
 */
export async function joinAddresses(tx: Db, userId: string, addresses: Address[]): Promise<string | null> {
  const unique = [...new Map(addresses.map((a) => [`${a.kind}:${a.value}`, a])).values()];
  if (unique.length < 2) return null;
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`people:${userId}`}))`);
  const kinds = sql.param(unique.map((a) => a.kind));
  const values = sql.param(unique.map((a) => a.value));
  const known = await queryRows<{ person_id: string }>(
    tx,
    sql`SELECT DISTINCT a.person_id FROM person_addresses a
        JOIN unnest(${kinds}::text[], ${values}::text[]) AS x(kind, value)
          ON a.kind = x.kind AND a.value = x.value
        WHERE a.user_id = ${userId}
        ORDER BY a.person_id`,
  );
  let personId = known[0]?.person_id;
  if (!personId) {
    personId = newId();
    await tx.execute(sql`INSERT INTO people (id, user_id) VALUES (${personId}, ${userId})`);
  }
  const merged = known.slice(1).map((k) => k.person_id);
  if (merged.length > 0) {
    await tx.execute(
      sql`UPDATE person_addresses SET person_id = ${personId}
          WHERE person_id = ANY(${sql.param(merged)}::text[])`,
    );
    await mergeInboxes(tx, personId, merged);
    await tx.execute(sql`DELETE FROM people WHERE id = ANY(${sql.param(merged)}::text[])`);
  }
  await tx.execute(
    sql`INSERT INTO person_addresses (user_id, kind, value, person_id)
        SELECT ${userId}, x.kind, x.value, ${personId}
        FROM unnest(${kinds}::text[], ${values}::text[]) AS x(kind, value)
        ON CONFLICT DO NOTHING`,
  );
  return personId;
}

/**
 * The Inbox of people merged into `personId`: their messages become its, and their threads one
 * (the latest message and the account last written to, unread added up, open when any was). The
 * latest message is the one the thread shows last (messages in `at` order, then as kept: two in one
 * second, WhatsApp's unit of time, are told apart by which came in later); a thread whose messages
 * were all erased gives its own. In the caller's transaction, before the merged people are deleted
 * (their threads go with them).
 */
async function mergeInboxes(tx: Db, personId: string, merged: string[]): Promise<void> {
  const all = sql.param([personId, ...merged]);
  await tx.execute(
    sql`UPDATE inbox_messages SET person_id = ${personId} WHERE person_id = ANY(${sql.param(merged)}::text[])`,
  );
  await tx.execute(
    sql`WITH latest AS (
          SELECT m.text, m.type, m.direction FROM inbox_messages m
          WHERE m.person_id = ${personId} ORDER BY m.at DESC, m.id DESC LIMIT 1
        )
        INSERT INTO inbox_threads AS t (person_id, user_id, session_id, name, last_text, last_type,
                                        last_direction, last_at, last_in_at, unread, state)
        SELECT ${personId}, min(x.user_id),
               (array_agg(x.session_id ORDER BY x.last_in_at DESC))[1],
               (array_agg(x.name ORDER BY x.last_in_at DESC) FILTER (WHERE x.name IS NOT NULL))[1],
               coalesce((SELECT text FROM latest), (array_agg(x.last_text ORDER BY x.last_at DESC))[1]),
               coalesce((SELECT type FROM latest), (array_agg(x.last_type ORDER BY x.last_at DESC))[1]),
               coalesce((SELECT direction FROM latest), (array_agg(x.last_direction ORDER BY x.last_at DESC))[1]),
               max(x.last_at), max(x.last_in_at), sum(x.unread)::int,
               CASE WHEN bool_or(x.state = 'open') THEN 'open' ELSE 'done' END
        FROM inbox_threads x WHERE x.person_id = ANY(${all}::text[])
        HAVING count(*) > 0
        ON CONFLICT (person_id) DO UPDATE SET
          session_id = excluded.session_id, name = excluded.name, last_text = excluded.last_text,
          last_type = excluded.last_type, last_direction = excluded.last_direction,
          last_at = excluded.last_at, last_in_at = excluded.last_in_at, unread = excluded.unread,
          state = excluded.state`,
  );
}

/**
 * The person `address` belongs to, made (a person of one address) when no row names it yet: the
 * Inbox keeps a person's messages under their id. In the caller's transaction, under the user's
 * people lock when it writes.
 */
export async function personOfAddress(tx: Db, userId: string, address: Address): Promise<string> {
  const find = async () =>
    (
      await queryRows<{ person_id: string }>(
        tx,
        sql`SELECT person_id FROM person_addresses
            WHERE user_id = ${userId} AND kind = ${address.kind} AND value = ${address.value}`,
      )
    )[0]?.person_id;
  const known = await find();
  if (known) return known;
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`people:${userId}`}))`);
  const again = await find();
  if (again) return again;
  const personId = newId();
  await tx.execute(sql`INSERT INTO people (id, user_id) VALUES (${personId}, ${userId})`);
  await tx.execute(
    sql`INSERT INTO person_addresses (user_id, kind, value, person_id)
        VALUES (${userId}, ${address.kind}, ${address.value}, ${personId})`,
  );
  return personId;
}

/**
 * Of a send's recipients (numbers and BSUIDs, in order), those whose person an earlier one
 * already is (a number and the BSUID WhatsApp showed to be theirs): a job writes to a person once.
 * One statement over the set, and none when the user has no joined addresses (the common case).
 */
export async function samePersonRepeats(db: Db, userId: string, values: string[]): Promise<Set<number>> {
  if (values.length < 2) return new Set();
  const [any] = await queryRows<{ yes: boolean }>(
    db,
    sql`SELECT EXISTS (SELECT 1 FROM person_addresses WHERE user_id = ${userId}) AS yes`,
  );
  if (!any?.yes) return new Set();
  const rows = await queryRows<{ n: number | string; person_id: string }>(
    db,
    sql`SELECT x.n, a.person_id
        FROM unnest(${sql.param(values)}::text[]) WITH ORDINALITY AS x(value, n)
        JOIN person_addresses a ON a.user_id = ${userId} AND a.value = x.value
          AND a.kind = CASE WHEN x.value ~ '^[0-9]+$' THEN 'phone' ELSE 'bsuid' END
        ORDER BY x.n`,
  );
  const seen = new Set<string>();
  const repeats = new Set<number>();
  for (const r of rows) {
    if (seen.has(r.person_id)) repeats.add(Number(r.n) - 1);
    seen.add(r.person_id);
  }
  return repeats;
}

/**
 * Many joins at once (a contact import's rows that carry a number and a BSUID or a username):
 * groups none of whose addresses is known yet become people in two statements; the others are
 * joined one by one (`joinAddresses`), in the caller's transaction. An address two groups claim
 * stays with the first.
 */
export async function joinAddressGroups(tx: Db, userId: string, groups: Address[][]): Promise<void> {
  const all = groups.flat();
  if (all.length === 0) return;
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`people:${userId}`}))`);
  const known = new Set(
    (
      await queryRows<Address>(
        tx,
        sql`SELECT a.kind, a.value FROM person_addresses a
            JOIN unnest(${sql.param(all.map((a) => a.kind))}::text[], ${sql.param(all.map((a) => a.value))}::text[])
              AS x(kind, value) ON a.kind = x.kind AND a.value = x.value
            WHERE a.user_id = ${userId}`,
      )
    ).map((a) => `${a.kind}:${a.value}`),
  );
  const fresh = groups.filter((g) => g.every((a) => !known.has(`${a.kind}:${a.value}`)));
  const rest = groups.filter((g) => g.some((a) => known.has(`${a.kind}:${a.value}`)));
  const ids = fresh.map(() => newId());
  for (let i = 0; i < fresh.length; i += 5000) {
    const part = fresh.slice(i, i + 5000);
    const partIds = ids.slice(i, i + 5000);
    await tx.execute(
      sql`INSERT INTO people (id, user_id) SELECT id, ${userId} FROM unnest(${sql.param(partIds)}::text[]) AS id`,
    );
    const rows = part.flatMap((g, j) => g.map((a) => ({ ...a, personId: partIds[j]! })));
    await tx.execute(
      sql`INSERT INTO person_addresses (user_id, kind, value, person_id)
          SELECT ${userId}, x.kind, x.value, x.person_id
          FROM unnest(${sql.param(rows.map((r) => r.kind))}::text[], ${sql.param(rows.map((r) => r.value))}::text[],
                      ${sql.param(rows.map((r) => r.personId))}::text[]) AS x(kind, value, person_id)
          ON CONFLICT DO NOTHING`,
    );
  }
  for (const g of rest) await joinAddresses(tx, userId, g);
}

/** Forgets the person of these addresses and every address joined to them (an erasure). */
export async function forgetPerson(tx: Db, userId: string, addresses: Address[]): Promise<void> {
  if (addresses.length === 0) return;
  await tx.execute(
    sql`DELETE FROM people WHERE user_id = ${userId} AND id IN (
          SELECT a.person_id FROM person_addresses a
          JOIN unnest(${sql.param(addresses.map((a) => a.kind))}::text[],
                      ${sql.param(addresses.map((a) => a.value))}::text[]) AS x(kind, value)
            ON a.kind = x.kind AND a.value = x.value
          WHERE a.user_id = ${userId})`,
  );
}
