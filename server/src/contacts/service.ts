import {
  type Contact,
  type ContactListSummary,
  type ContactsQuery,
  CSV_BOM,
  CsvRowReader,
  csvLine,
  detectColumns,
  detectDelimiter,
  type ImportContactsResponse,
  type OptOut,
  type OptOutSource,
  PHONE_TEXTS,
  parsePhone,
  sheetCellText,
  TAG_FIELD_KEYS,
  tagsOfCell,
} from '@wa/contract';
import { and, desc, eq, or, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.ts';
import { contactLists, contacts, optOuts } from '../db/schema.ts';
import { badRequest, notFound } from '../errors.ts';
import { groupsOf } from '../groups/repository.ts';
import { participantPhone } from '../groups/service.ts';
import { newId } from '../ids.ts';
import { type Actor, authorizeContactList, authorizeSession } from '../policy/access.ts';
import { queueWebhookEvents } from '../webhooks/service.ts';

export const MAX_IMPORT_ROWS = 1_000_000;
export const CONTACT_MESSAGES = {
  notATable: 'Error processing the file',
  tooManyRows: `The file has more than ${MAX_IMPORT_ROWS.toLocaleString('en-US')} rows`,
  nameRequired: 'List name is required',
  invalidNumber: PHONE_TEXTS.invalid,
  optOutNotFound: 'Number is not on the opt-out list',
  groupNotFound: 'Group not found',
} as const;

/** Rows read before the columns are decided (the preview the page shows is the same rule). */
const SAMPLE_ROWS = 50;
const BATCH = 5000;
/** Joins a contact's tags in one array parameter of the import (tags hold no control characters). */
const TAG_SEPARATOR = '\u001f';

class NotATable extends Error {}

// ---------------------------------------------------------------------------------------------
// Opt-outs

export async function listOptOuts(db: Db, userId: string): Promise<OptOut[]> {
  const rows = await db
    .select()
    .from(optOuts)
    .where(eq(optOuts.userId, userId))
    .orderBy(desc(optOuts.createdAt));
  return rows.map((r) => ({
    phoneNumber: r.phoneNumber,
    source: r.source,
    createdAt: r.createdAt.toISOString(),
  }));
}

/** Puts numbers on the user's opt-out list (those already there keep their first time and source). */
export async function addOptOuts(
  db: Db,
  userId: string,
  input: string[],
  source: OptOutSource,
  defaultCallingCode: string,
): Promise<string[]> {
  const numbers = new Set<string>();
  for (const cell of input) {
    const parsed = parsePhone(cell, defaultCallingCode);
    if (!('number' in parsed)) throw badRequest(CONTACT_MESSAGES.invalidNumber(cell));
    numbers.add(parsed.number);
  }
  return db.transaction(async (tx) => {
    const added: string[] = [];
    const all = [...numbers];
    for (let i = 0; i < all.length; i += BATCH) {
      const rows = await tx
        .insert(optOuts)
        .values(all.slice(i, i + BATCH).map((phoneNumber) => ({ userId, phoneNumber, source })))
        .onConflictDoNothing()
        .returning({ phoneNumber: optOuts.phoneNumber, createdAt: optOuts.createdAt });
      added.push(...rows.map((r) => r.phoneNumber));
      if (rows.length > 0)
        await queueWebhookEvents(
          tx,
          userId,
          'optout',
          rows.map((r) => ({ phone: r.phoneNumber, source, at: r.createdAt.toISOString() })),
        );
    }
    return added;
  });
}

export async function removeOptOut(
  db: Db,
  userId: string,
  cell: string,
  defaultCallingCode: string,
): Promise<void> {
  const parsed = parsePhone(cell, defaultCallingCode);
  const phoneNumber = 'number' in parsed ? parsed.number : cell;
  const rows = await db
    .delete(optOuts)
    .where(and(eq(optOuts.userId, userId), eq(optOuts.phoneNumber, phoneNumber)))
    .returning({ phoneNumber: optOuts.phoneNumber });
  if (rows.length === 0) throw notFound(CONTACT_MESSAGES.optOutNotFound);
}

// ---------------------------------------------------------------------------------------------
// Contact lists

const optedOutOf = (userId: string) =>
  // Written out: drizzle leaves a column in sql`` unqualified, which would bind to o.phone_number.
  sql<boolean>`exists (select 1 from opt_outs o where o.user_id = ${userId} and o.phone_number = contacts.phone_number)`;

async function summaries(db: Db, userId: string, listId?: string): Promise<ContactListSummary[]> {
  const rows = await db
    .select({
      id: contactLists.id,
      name: contactLists.name,
      fields: contactLists.fields,
      createdAt: contactLists.createdAt,
      count: sql<number>`(select count(*)::int from ${contacts} c where c.list_id = ${contactLists.id})`,
      optedOut: sql<number>`(select count(*)::int from ${contacts} c join ${optOuts} o on o.user_id = ${contactLists.userId} and o.phone_number = c.phone_number where c.list_id = ${contactLists.id})`,
    })
    .from(contactLists)
    .where(listId ? eq(contactLists.id, listId) : eq(contactLists.userId, userId))
    .orderBy(desc(contactLists.createdAt));
  return rows.map((r) => ({
    ...r,
    count: Number(r.count),
    optedOut: Number(r.optedOut),
    createdAt: r.createdAt.toISOString(),
  }));
}

export const listContactLists = (db: Db, actor: Actor) => summaries(db, actor.id);

export async function contactsOfList(
  db: Db,
  actor: Actor,
  listId: string,
  query: ContactsQuery,
): Promise<{ contacts: Contact[]; total: number }> {
  const list = await authorizeContactList(db, actor, 'read', listId);
  const search = query.search?.trim();
  const digits = search?.replace(/[^0-9]/g, '') ?? '';
  const like = (v: string) => `%${v.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const where = search
    ? and(
        eq(contacts.listId, listId),
        or(
          digits ? sql`${contacts.phoneNumber} like ${like(digits)}` : undefined,
          sql`${contacts.fields}->>'name' ilike ${like(search)}`,
          sql`${search} = any(${contacts.tags})`,
        ),
      )
    : eq(contacts.listId, listId);
  const [rows, [total]] = await Promise.all([
    db
      .select({
        phoneNumber: contacts.phoneNumber,
        fields: contacts.fields,
        tags: contacts.tags,
        optedOut: optedOutOf(list.userId),
      })
      .from(contacts)
      .where(where)
      .orderBy(contacts.position)
      .limit(query.limit)
      .offset(query.offset),
    db.select({ n: sql<number>`count(*)::int` }).from(contacts).where(where),
  ]);
  return {
    contacts: rows.map((r) => ({
      phoneNumber: r.phoneNumber,
      name: r.fields.name ?? '',
      fields: r.fields,
      tags: r.tags,
      optedOut: Boolean(r.optedOut),
    })),
    total: Number(total?.n ?? 0),
  };
}

export async function deleteContactList(db: Db, actor: Actor, listId: string): Promise<void> {
  await authorizeContactList(db, actor, 'act', listId);
  await db.delete(contactLists).where(eq(contactLists.id, listId));
}

/**
 * The list as CSV (phone_number, then its fields, then `tags` when a contact has any, joined by
 * ` ::: ` as they were imported), produced in pages so a big list streams.
 */
export async function* exportContactList(db: Db, actor: Actor, listId: string): AsyncGenerator<string> {
  const list = await authorizeContactList(db, actor, 'read', listId);
  const [tagged] = await queryRows<{ any: boolean }>(
    db,
    sql`SELECT EXISTS (SELECT 1 FROM contacts WHERE list_id = ${listId} AND cardinality(tags) > 0) AS any`,
  );
  const withTags = Boolean(tagged?.any);
  yield `${CSV_BOM}${csvLine(['phone_number', ...list.fields, ...(withTags ? ['tags'] : [])])}`;
  let after = -1;
  for (;;) {
    const rows = await db
      .select({
        position: contacts.position,
        phoneNumber: contacts.phoneNumber,
        fields: contacts.fields,
        tags: contacts.tags,
      })
      .from(contacts)
      .where(and(eq(contacts.listId, listId), sql`${contacts.position} > ${after}`))
      .orderBy(contacts.position)
      .limit(BATCH);
    if (rows.length === 0) return;
    yield rows
      .map((r) =>
        csvLine([
          r.phoneNumber,
          ...list.fields.map((f) => r.fields[f] ?? ''),
          ...(withTags ? [r.tags.join(' ::: ')] : []),
        ]),
      )
      .join('');
    after = rows[rows.length - 1]!.position;
  }
}

/** Text chunks of a CSV upload as rows: the delimiter is detected from the first chunk. */
export async function* csvRows(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<string[]> {
  const decoder = new TextDecoder('utf-8');
  let reader: CsvRowReader | null = null;
  for await (const chunk of chunks) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    // No text file holds NUL bytes: a photo or an archive named .csv.
    if (text.includes('\u0000')) throw new NotATable();
    reader ??= new CsvRowReader(detectDelimiter(text.slice(0, 64 * 1024)));
    yield* reader.push(text);
  }
  if (reader) {
    yield* reader.push(decoder.decode());
    yield* reader.end();
  }
}

/** The first sheet of an .xlsx as rows of text. */
export async function* xlsxRows(data: Buffer): AsyncGenerator<string[]> {
  const { readSheet } = await import('read-excel-file/node');
  let rows: unknown[][];
  try {
    rows = await readSheet(data);
  } catch {
    throw new NotATable();
  }
  for (const row of rows) yield row.map(sheetCellText);
}

/**
 * Imports a table as a new list (DECISIONS.md Phone numbers, issue 15): columns detected from
 * the first rows, numbers parsed, invalid and empty ones counted, duplicates merged; rows are
 * written in batches inside one transaction, so a refused file leaves nothing behind.
 */
export async function importContactList(
  db: Db,
  actor: Actor,
  input: { name: string; phoneColumn?: string; rows: AsyncIterable<string[]> },
  defaultCallingCode: string,
): Promise<Omit<ImportContactsResponse, 'success'>> {
  const name = input.name.trim();
  if (name === '') throw badRequest(CONTACT_MESSAGES.nameRequired);
  const iterator = input.rows[Symbol.asyncIterator]();
  const sample: string[][] = [];
  try {
    while (sample.length < SAMPLE_ROWS) {
      const next = await iterator.next();
      if (next.done) break;
      if (next.value.some((c) => c.trim() !== '')) sample.push(next.value);
    }
  } catch (e) {
    if (e instanceof NotATable) throw badRequest(CONTACT_MESSAGES.notATable);
    throw e;
  }
  const columns = detectColumns(sample, defaultCallingCode, input.phoneColumn);
  if (columns.phoneColumn === -1) throw badRequest(CONTACT_MESSAGES.notATable);
  const listId = newId();
  // A `tags` or `labels` column gives each contact's tags; every other column is a field.
  const tagsColumn = columns.fields.find((f) => TAG_FIELD_KEYS.includes(f.key))?.column;
  const fieldColumns = columns.fields.filter((f) => f.column !== tagsColumn);
  const fields = fieldColumns.map((f) => f.key);
  const skipped = { invalid: 0, duplicates: 0, empty: 0 };
  let imported = 0;
  let rowCount = 0;

  await db.transaction(async (tx) => {
    await tx.insert(contactLists).values({ id: listId, userId: actor.id, name, fields });
    let batch: (typeof contacts.$inferInsert)[] = [];
    // One batch is written while the next is parsed (Node parses, PostgreSQL inserts: on two
    // cores they overlap); at most one insert is in flight, so memory holds two batches.
    let inFlight: Promise<void> = Promise.resolve();
    let failure: unknown = null;
    const write = async (rows: (typeof contacts.$inferInsert)[]) => {
      // Four array parameters instead of 20,000 single ones: PostgreSQL parses and plans it at
      // once (1,000,000 rows: 41 s with a VALUES list).
      const [row] = await queryRows<{ n: number }>(
        tx,
        sql`WITH ins AS (
              INSERT INTO contacts (list_id, position, phone_number, fields, tags)
              SELECT ${listId}, t.position, t.phone_number, t.fields::jsonb, string_to_array(t.tags, ${TAG_SEPARATOR})
                FROM unnest(${sql.param(rows.map((b) => b.position))}::int[],
                            ${sql.param(rows.map((b) => b.phoneNumber))}::text[],
                            ${sql.param(rows.map((b) => JSON.stringify(b.fields)))}::text[],
                            ${sql.param(rows.map((b) => (b.tags ?? []).join(TAG_SEPARATOR)))}::text[])
                     AS t(position, phone_number, fields, tags)
              ON CONFLICT DO NOTHING RETURNING 1)
            SELECT count(*)::int AS n FROM ins`,
      );
      const inserted = Number(row?.n ?? 0);
      imported += inserted;
      skipped.duplicates += rows.length - inserted;
    };
    const flush = async () => {
      await inFlight;
      if (failure) throw failure;
      if (batch.length === 0) return;
      const rows = batch;
      batch = [];
      inFlight = write(rows).catch((e: unknown) => {
        failure = e;
      });
    };
    const take = (row: string[]) => {
      if (row.every((c) => c.trim() === '')) return;
      rowCount++;
      if (rowCount > MAX_IMPORT_ROWS) throw badRequest(CONTACT_MESSAGES.tooManyRows);
      const parsed = parsePhone(row[columns.phoneColumn] ?? '', defaultCallingCode);
      if (!('number' in parsed)) {
        skipped[parsed.reason]++;
        return;
      }
      const values: Record<string, string> = {};
      for (const f of fieldColumns) {
        const v = (row[f.column] ?? '').trim();
        if (v !== '') values[f.key] = v;
      }
      const tags = tagsColumn === undefined ? [] : tagsOfCell(row[tagsColumn] ?? '');
      batch.push({ listId, position: rowCount, phoneNumber: parsed.number, fields: values, tags });
    };
    for (const row of columns.hasHeader ? sample.slice(1) : sample) take(row);
    try {
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        take(next.value);
        if (batch.length >= BATCH) await flush();
      }
    } catch (e) {
      if (e instanceof NotATable) throw badRequest(CONTACT_MESSAGES.notATable);
      throw e;
    } finally {
      // A refused file ends the transaction only after the insert it started has answered.
      await inFlight;
    }
    await flush();
    await inFlight;
    if (failure) throw failure;
  });
  const [list] = await summaries(db, actor.id, listId);
  return { list: list!, imported, skipped, phoneColumn: columns.headers[columns.phoneColumn] as string };
}

/**
 * 'Save members as a contact list' (issue 15): a new list of the user's own, holding the group's
 * members as the account last fetched them, in the group's order, admins with the field
 * `role`. The account's own number is left out; members known only by a hidden id (`@lid`) or
 * not valid as a number are counted as skipped.
 */
export async function saveGroupMembersAsList(
  db: Db,
  actor: Actor,
  input: { sessionId: string; groupId: string; name?: string },
  defaultCallingCode: string,
): Promise<{ list: ContactListSummary; imported: number; skipped: number }> {
  const session = await authorizeSession(db, actor, 'act', input.sessionId);
  const [group] = await groupsOf(db, input.sessionId, [input.groupId]);
  if (!group) throw notFound(CONTACT_MESSAGES.groupNotFound);
  const name = (input.name ?? '').trim() || group.subject.trim() || group.groupId;
  const own = session.phoneNumber.replace(/[^0-9]/g, '');
  const seen = new Set<string>();
  const rows: (typeof contacts.$inferInsert)[] = [];
  const listId = newId();
  let skipped = 0;
  for (const p of group.participants) {
    const phone = participantPhone(p);
    const parsed = /^[0-9]+$/.test(phone) ? parsePhone(`+${phone}`, defaultCallingCode) : null;
    if (!parsed || !('number' in parsed)) {
      skipped++;
      continue;
    }
    if (parsed.number === own || seen.has(parsed.number)) continue;
    seen.add(parsed.number);
    const role = p.admin === 'superadmin' ? 'Super Admin' : p.admin === 'admin' ? 'Admin' : 'Member';
    rows.push({ listId, position: rows.length + 1, phoneNumber: parsed.number, fields: { role } });
  }
  await db.transaction(async (tx) => {
    // The list belongs to the session's owner (an ADMIN acting on a managed user's session saves it there).
    await tx.insert(contactLists).values({ id: listId, userId: session.userId, name, fields: ['role'] });
    for (let i = 0; i < rows.length; i += BATCH) await tx.insert(contacts).values(rows.slice(i, i + BATCH));
  });
  const [list] = await summaries(db, session.userId, listId);
  return { list: list!, imported: rows.length, skipped };
}

/**
 * Numbers of `numbers` that are on the user's opt-out list. A user's list is usually far shorter
 * than a big send: it is read whole and matched here when it is (one index range), else the
 * numbers are looked up in it.
 */
export async function optedOutAmong(db: Db, userId: string, numbers: string[]): Promise<Set<string>> {
  if (numbers.length === 0) return new Set();
  const all = await queryRows<{ n: string }>(
    db,
    sql`SELECT phone_number AS n FROM opt_outs WHERE user_id = ${userId} LIMIT ${numbers.length + 1}`,
  );
  if (all.length <= numbers.length) {
    const wanted = new Set(numbers);
    return new Set(all.map((r) => r.n).filter((n) => wanted.has(n)));
  }
  const rows = await queryRows<{ n: string }>(
    db,
    sql`SELECT phone_number AS n FROM opt_outs
        WHERE user_id = ${userId} AND phone_number = ANY(${sql.param(numbers)}::text[])`,
  );
  return new Set(rows.map((r) => r.n));
}

/** An incoming text that opts its sender out: one of OPT_OUT_KEYWORDS, trimmed, any case. */
export function isOptOutReply(text: string, keywords: string[]): boolean {
  return keywords.includes(text.trim().replace(/\s+/g, ' ').toUpperCase());
}
