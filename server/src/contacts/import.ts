import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Address,
  type ConsentGrant,
  detectColumns,
  type ImportContactsResponse,
  isBsuid,
  parsePhone,
  TAG_FIELD_KEYS,
  tagsOfCell,
} from '@wa/contract';
import { eq, sql } from 'drizzle-orm';
import { recordAudit } from '../audit/record.ts';
import { type Db, queryRows } from '../db/client.ts';
import { consentGrants, contactLists } from '../db/schema.ts';
import { badRequest } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Actor } from '../policy/access.ts';
import { countGrant, insertGrant, presentGrant } from './consent.ts';
import { Batch, ROW_SEPARATOR, TAG_SEPARATOR } from './import-batch.ts';
import { IMPORT_LIMITS, IMPORT_MESSAGES, NotATable } from './import-limits.ts';
import { lockListsOf } from './list-lock.ts';
import { joinAddressGroups, optedOutSendable } from './people.ts';
import { CONTACT_MESSAGES } from './service.ts';

/** Rows read before the columns are decided (the preview the page shows is the same rule). */
const SAMPLE_ROWS = 50;
/** Rows of one insert at most. */
const BATCH = 5000;
/**
 * What one insert of an import may take on the embedded database, which runs on the event loop:
 * a statement of 5,000 rows held every other request ~100-270 ms there, one of 8 MB of long
 * cells ~1 s. Its batches are sized from the last insert's time per row and per character to
 * stay near this. On PostgreSQL an insert holds nothing in this process: batches stay large
 * (sized down by the same rule, 1,000,000 rows took 3,644 statements instead of 200).
 */
const INSERT_SLICE_MS = 20;
const MIN_BATCH = 250;
/**
 * A batch is also written once its fields hold this many characters (wide rows, long cells):
 * its text is encoded for the statement on the event loop on either database (8 MB: /healthz
 * 566 ms on PostgreSQL).
 */
const BATCH_CHARS = 1024 * 1024;
const MIN_BATCH_CHARS = 64 * 1024;
/** Headers (as field keys) of a column of business-scoped user ids. */
const BSUID_KEYS = ['bsuid', 'user_id', 'business_scoped_user_id'];

/**
 * Imports a table as a new list (docs/decisions.md, Phone numbers): columns detected from
 * the first rows, numbers parsed, invalid and empty ones counted, duplicates merged; rows are
 * written in batches inside one transaction, so a refused file leaves nothing behind. Reading
 * stops at the first row past the limits (IMPORT_LIMITS), and the rows are never all in memory.
 */
export async function importContactList(
  db: Db,
  actor: Actor,
  input: {
    name: string;
    phoneColumn?: string;
    rows: AsyncIterable<string[]>;
    /** The user confirmed that the people agreed, and for what; null: not confirmed. */
    consent?: { purpose: string; fileName: string | null; by: { id: string; username: string } } | null;
    /** The database runs on this process's event loop (PGlite): inserts are kept short. */
    embedded: boolean;
  },
  defaultCallingCode: string,
): Promise<Omit<ImportContactsResponse, 'success'>> {
  const name = input.name.trim();
  if (name === '') throw badRequest(CONTACT_MESSAGES.nameRequired);
  const iterator = input.rows[Symbol.asyncIterator]();
  try {
    return await importRows(
      db,
      actor,
      name,
      input.phoneColumn,
      iterator,
      defaultCallingCode,
      input.consent ?? null,
      input.embedded,
    );
  } catch (e) {
    if (e instanceof NotATable) throw badRequest(CONTACT_MESSAGES.notATable);
    throw e;
  } finally {
    // A refused file closes its reader (and the file) at once.
    await iterator.return?.();
  }
}

async function importRows(
  db: Db,
  actor: Actor,
  name: string,
  phoneColumn: string | undefined,
  iterator: AsyncIterator<string[]>,
  defaultCallingCode: string,
  consent: { purpose: string; fileName: string | null; by: { id: string; username: string } } | null,
  embedded: boolean,
): Promise<Omit<ImportContactsResponse, 'success'>> {
  const sample: string[][] = [];
  while (sample.length < SAMPLE_ROWS) {
    const next = await iterator.next();
    if (next.done) break;
    if (next.value.some((c) => c.trim() !== '')) sample.push(next.value);
  }
  const columns = detectColumns(sample, defaultCallingCode, phoneColumn);
  // A `bsuid` column names people a Cloud API number knows only by it; a `username` column names
  // them too but cannot be written to (docs/people.md). Both stay fields as well.
  const bsuidColumn = columns.fields.find((f) => BSUID_KEYS.includes(f.key))?.column;
  const usernameColumn = columns.fields.find((f) => f.key === 'username')?.column;
  if (columns.phoneColumn === -1 && bsuidColumn === undefined) throw badRequest(CONTACT_MESSAGES.notATable);
  const listId = newId();
  // A `tags` or `labels` column gives each contact's tags; every other column is a field.
  const tagsColumn = columns.fields.find((f) => TAG_FIELD_KEYS.includes(f.key))?.column;
  const fieldColumns = columns.fields.filter((f) => f.column !== tagsColumn);
  const fields = fieldColumns.map((f) => f.key);
  const skipped = { invalid: 0, duplicates: 0, empty: 0 };
  let imported = 0;
  let rowCount = 0;
  let totalChars = 0;
  let createdAt = new Date();
  let grant: ConsentGrant | null = null;
  /** A row's addresses, when it has more than one: the file says they are one person's. */
  const joins: Address[][] = [];

  await db.transaction(async (tx) => {
    await lockListsOf(tx, actor.id);
    const [made] = await tx
      .insert(contactLists)
      .values({ id: listId, userId: actor.id, name, fields })
      .returning({ createdAt: contactLists.createdAt });
    createdAt = made!.createdAt;
    const grantId = consent
      ? await insertGrant(tx, {
          userId: actor.id,
          source: 'import',
          purpose: consent.purpose,
          fileName: consent.fileName,
          listId,
          actor: consent.by,
        })
      : null;
    // One batch is written while the next is parsed (Node parses, PostgreSQL inserts: on two
    // cores they overlap); at most one insert is in flight, so memory holds two batches: the
    // one being filled, and `written`, whose insert is in flight, then filled again.
    let batch = new Batch();
    let written = new Batch();
    let inFlight: Promise<void> = Promise.resolve();
    let failure: unknown = null;
    // The first insert is small: the first import on a fresh PGlite held /healthz 215 ms at its start.
    let batchSize = embedded ? MIN_BATCH : BATCH;
    let batchCharsLimit = embedded ? MIN_BATCH_CHARS : BATCH_CHARS;
    const write = async (rows: Batch) => {
      const started = performance.now();
      const params = rows.params();
      // Four text parameters instead of 20,000 single ones: PostgreSQL parses and plans the
      // statement at once (1,000,000 rows: 41 s with a VALUES list), and splits them itself.
      // A one-row batch without tags sends '' for them, which splits into no element: unnest
      // then gives that row's tags as NULL, which are none.
      const [row] = await queryRows<{ n: number }>(
        tx,
        sql`WITH ins AS (
              INSERT INTO contacts (list_id, position, phone_number, fields, tags, consent_grant_id)
              SELECT ${listId}, t.position::int, t.phone_number, t.fields::jsonb,
                     coalesce(string_to_array(t.tags, ${TAG_SEPARATOR}), '{}'), ${grantId}::text
                FROM unnest(string_to_array(${params.positions}, ${ROW_SEPARATOR}),
                            string_to_array(${params.phones}, ${ROW_SEPARATOR}),
                            string_to_array(${params.fields}, ${ROW_SEPARATOR}),
                            string_to_array(${params.tags}, ${ROW_SEPARATOR}))
                     AS t(position, phone_number, fields, tags)
              ON CONFLICT DO NOTHING RETURNING 1)
            SELECT count(*)::int AS n FROM ins`,
      );
      const inserted = Number(row?.n ?? 0);
      imported += inserted;
      skipped.duplicates += rows.length - inserted;
      if (!embedded) return;
      const ms = performance.now() - started;
      batchSize = Math.max(MIN_BATCH, Math.min(BATCH, Math.floor((INSERT_SLICE_MS * rows.length) / ms)));
      if (rows.chars > 0)
        batchCharsLimit = Math.max(
          MIN_BATCH_CHARS,
          Math.min(BATCH_CHARS, Math.floor((INSERT_SLICE_MS * rows.chars) / ms)),
        );
    };
    const flush = async () => {
      await inFlight;
      if (failure) throw failure;
      if (batch.length === 0) return;
      // A timer's turn between the embedded database's inserts: its answers resolve as promises
      // only, so a run of them (with the file's reads between) kept every other request out of
      // the event loop: /healthz waited 3.8-9.0 s during the 49 MB file of long cells.
      if (embedded) await sleep(0);
      // The insert of `written` has answered (awaited above): its buffers take the next rows.
      const rows = batch;
      batch = written.clear();
      written = rows;
      inFlight = write(rows).catch((e: unknown) => {
        failure = e;
      });
    };
    const take = (row: string[]) => {
      if (row.every((c) => c.trim() === '')) return;
      rowCount++;
      if (rowCount > IMPORT_LIMITS.maxRows) throw badRequest(IMPORT_MESSAGES.tooManyRows);
      const parsed =
        columns.phoneColumn === -1
          ? ({ reason: 'empty' } as const)
          : parsePhone(row[columns.phoneColumn] ?? '', defaultCallingCode);
      const bsuid = bsuidColumn === undefined ? '' : (row[bsuidColumn] ?? '').trim();
      const username =
        usernameColumn === undefined ? '' : (row[usernameColumn] ?? '').trim().replace(/^@/, '');
      const addresses: Address[] = [];
      if ('number' in parsed) addresses.push({ kind: 'phone', value: parsed.number });
      if (isBsuid(bsuid)) addresses.push({ kind: 'bsuid', value: bsuid });
      if (addresses.length === 0) {
        skipped[bsuid !== '' ? 'invalid' : 'reason' in parsed ? parsed.reason : 'invalid']++;
        return;
      }
      if (username !== '') addresses.push({ kind: 'username', value: username });
      if (addresses.length > 1) joins.push(addresses);
      const values: Record<string, string> = {};
      let chars = 0;
      for (const f of fieldColumns) {
        const v = (row[f.column] ?? '').trim();
        if (v !== '') values[f.key] = v;
        chars += v.length;
      }
      const tags = tagsColumn === undefined ? [] : tagsOfCell(row[tagsColumn] ?? '');
      chars += tags.reduce((n, t) => n + t.length, 0);
      totalChars += chars;
      if (totalChars > IMPORT_LIMITS.maxTotalChars) throw badRequest(IMPORT_MESSAGES.tooMuchText);
      // A contact is named by its number, else by its BSUID.
      batch.add(rowCount, addresses[0]!.value, values, tags, chars);
    };
    const full = () => batch.length >= batchSize || batch.chars >= batchCharsLimit;
    try {
      // The sample's rows are written in batches too: 50 rows of long cells made one statement
      // of 9.8 MB, which held the embedded database, and so every request, 6.2 s.
      for (const row of columns.hasHeader ? sample.slice(1) : sample) {
        take(row);
        if (full()) await flush();
      }
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        take(next.value);
        if (full()) await flush();
      }
    } finally {
      // A refused file ends the transaction only after the insert it started has answered.
      await inFlight;
    }
    await flush();
    await inFlight;
    if (failure) throw failure;
    await joinAddressGroups(tx, actor.id, joins);
    if (grantId && consent) {
      await countGrant(tx, grantId, imported);
      const [row] = await tx.select().from(consentGrants).where(eq(consentGrants.id, grantId));
      grant = presentGrant(row!);
      await recordAudit(tx, {
        actor: consent.by,
        action: 'consent.grant',
        targetUserId: actor.id,
        details: {
          grantId,
          source: 'import',
          purpose: consent.purpose,
          fileName: consent.fileName,
          listId,
          numbers: imported,
        },
      });
    }
  });
  // The list's count is what this transaction inserted; counting a fresh 1,000,000-row list
  // again held PGlite (and so every request) ~200 ms. Its opted-out numbers are found from the
  // user's opt-out list (by any address of their people), one key lookup each.
  const [opted] = await queryRows<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n FROM (${optedOutSendable(actor.id)}) op
        WHERE EXISTS (SELECT 1 FROM contacts c WHERE c.list_id = ${listId} AND c.phone_number = op.value)`,
  );
  const list = {
    id: listId,
    name,
    fields,
    createdAt: createdAt.toISOString(),
    count: imported,
    optedOut: Number(opted?.n ?? 0),
    consent: grant,
  };
  // The column that names the contacts: the numbers', else the BSUIDs'.
  const named = columns.phoneColumn === -1 ? bsuidColumn! : columns.phoneColumn;
  return { list, imported, skipped, phoneColumn: columns.headers[named] as string };
}
