import {
  CsvRowReader,
  type Delimiter,
  detectColumns,
  detectDelimiter,
  parsePhone,
  readCsvRows,
  sheetCellText,
} from '@wa/contract';

/** `DEFAULT_COUNTRY_CODE` (docs/decisions.md, Phone numbers) until /api/meta answers: numbers without a country code are Indian. */
export const DEFAULT_COUNTRY_CODE = '91';

export type CsvContacts = {
  /** Phone numbers as digits only, in file order, each once. */
  numbers: string[];
  /** Why lines were left out (empty lines are not counted; a header row counts as 'noDigits'). */
  skipped: { noDigits: number; invalid: number; duplicates: number };
  /** A file with a header row: its other columns as field keys (`name` when a header says so). */
  fieldKeys: string[];
  /** `fieldValues[k][i]`: field k of `numbers[i]`. */
  fieldValues: string[][];
  /** The column the numbers were taken from: its header, or `column 2` in a file without one. */
  phoneColumn: string;
};

/** Rows read to find the columns (the server's contact import reads as many). */
const SAMPLE_ROWS = 50;

/**
 * The number in one CSV cell, or why it is not one: 'noDigits' (a header such as `phone`),
 * 'invalid' (not a number libphonenumber-js accepts). The rule is contract/phone.ts's, the
 * one the server's contact import uses (docs/decisions.md, Phone numbers).
 */
export function cleanPhoneNumber(
  cell: string,
  countryCode = DEFAULT_COUNTRY_CODE,
): { number: string } | { reason: 'noDigits' | 'invalid' } {
  if (!/[0-9]/.test(cell)) return { reason: 'noDigits' };
  const parsed = parsePhone(cell, countryCode);
  return 'number' in parsed ? parsed : { reason: 'invalid' };
}

/**
 * Reads an uploaded CSV as docs/decisions.md, CSV upload says: the number of each non-empty line, trimmed and
 * cleaned, from the phone column (see `contactsOfRows`); header and invalid lines skipped and
 * counted; duplicates removed; a header's other columns kept as fields for `{{field}}`. The rows
 * are read by contract/csv.ts, the reader of the server's contact import (quoted fields, CRLF,
 * a BOM; `,`, `;` or tab found as the import finds it).
 */
export function parseContactsCsv(text: string, countryCode = DEFAULT_COUNTRY_CODE): CsvContacts {
  // No text file holds NUL bytes: this is binary data (a photo, a spreadsheet) named .csv.
  if (text.includes('\u0000')) throw new Error('not a text file');
  const delimiter = detectDelimiter(text.slice(0, 64 * 1024));
  const reader = new CsvRowReader(delimiter);
  const rows = reader.push(text);
  for (const row of reader.end()) rows.push(row);
  // A quote opened inside a cell and closed lines later (`=HYPERLINK("a","b"),x` then `5" TV`)
  // would make one field of the lines between, hiding their numbers without a word: then each
  // line is read on its own, as docs/decisions.md, CSV upload says (the first column of each non-empty line).
  return contactsOfRows(reader.strayQuote ? firstCellOfEachLine(text, delimiter) : rows, countryCode);
}

function firstCellOfEachLine(text: string, delimiter: Delimiter): string[][] {
  const input = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return input
    .split(/\r\n|\n|\r/)
    .filter((line) => line.trim() !== '')
    .map((line) => [readCsvRows(line, delimiter)[0]?.[0] ?? '']);
}

/**
 * The numbers of a table's rows (a CSV's or an .xlsx sheet's). The columns are found by
 * contract/phone.ts, the code the Contacts import uses: a first row whose cells hold no number
 * is a header, the phone column is the one a header names (`Mobile`, `Phone`, `मोबाइल` …) or
 * else the one whose cells are numbers (the first column when that ties), and the other
 * columns of a file with a header become fields.
 */
export function contactsOfRows(rows: string[][], countryCode = DEFAULT_COUNTRY_CODE): CsvContacts {
  const sample = rows.slice(0, SAMPLE_ROWS).filter((r) => r.some((c) => c.trim() !== ''));
  const columns = detectColumns(sample, countryCode);
  const hasHeader = columns.hasHeader && sample.length > 0;
  const phoneColumn = columns.phoneColumn !== -1 ? columns.phoneColumn : 0;
  const fields = hasHeader ? columns.fields.filter((f) => f.column !== phoneColumn) : [];
  const fieldValues: string[][] = fields.map(() => []);
  const numbers: string[] = [];
  const seen = new Set<string>();
  const skipped = { noDigits: 0, invalid: 0, duplicates: 0 };
  let header = hasHeader;
  for (const row of rows) {
    const cell = row[phoneColumn] ?? '';
    if (header && row.some((c) => c.trim() !== '')) {
      // The header row: a line without a number, as docs/decisions.md, CSV upload counts it.
      header = false;
      skipped.noDigits++;
      continue;
    }
    if (cell.trim() === '') {
      if (row.some((c) => c.trim() !== '')) skipped.noDigits++;
      continue;
    }
    const result = cleanPhoneNumber(cell, countryCode);
    if ('reason' in result) {
      skipped[result.reason]++;
    } else if (seen.has(result.number)) {
      skipped.duplicates++;
    } else {
      seen.add(result.number);
      numbers.push(result.number);
      fields.forEach((f, k) => {
        fieldValues[k]!.push((row[f.column] ?? '').trim());
      });
    }
  }
  const title = hasHeader ? columns.headers[phoneColumn]?.trim() : '';
  return {
    numbers,
    skipped,
    fieldKeys: fields.map((f) => f.key),
    fieldValues,
    phoneColumn: title ? title : `column ${phoneColumn + 1}`,
  };
}

/** Which column the numbers came from, in words for the upload area. */
export const describePhoneColumn = (column: string) =>
  /^column [0-9]+$/.test(column) ? `Numbers from ${column}.` : `Numbers from the column '${column}'.`;

/** How many lines were left out and why, in words for the upload area. */
export function describeSkipped(skipped: CsvContacts['skipped']): string | null {
  const total = skipped.noDigits + skipped.invalid + skipped.duplicates;
  if (total === 0) return null;
  const parts: string[] = [];
  if (skipped.noDigits) parts.push(`${skipped.noDigits} without a number (header or text)`);
  if (skipped.invalid) parts.push(`${skipped.invalid} invalid (not a phone number)`);
  if (skipped.duplicates) parts.push(`${skipped.duplicates} duplicate${skipped.duplicates === 1 ? '' : 's'}`);
  return `Skipped ${total} line${total === 1 ? '' : 's'}: ${parts.join(', ')}.`;
}

/** Reading the file failed ('Error reading the file') or parsing it did ('Error processing the CSV file'). */
export class CsvReadError extends Error {
  constructor(readonly stage: 'read' | 'parse') {
    super(stage === 'read' ? 'Error reading the file' : 'Error processing the CSV file');
  }
}

/**
 * An upload as the bulk page keeps it: the numbers, and each field's values packed in one string
 * (NUL-separated: no text file holds NUL) that is split only when a send or the preview needs it.
 * A million numbers cross from the worker as one string: cloning a million-string array would
 * block the page for longer.
 */
export type CsvUpload = Omit<CsvContacts, 'fieldValues'> & { fieldColumns: string[] };

export type PackedCsv = Omit<CsvContacts, 'numbers' | 'fieldValues'> & {
  numbers: string;
  fieldColumns: string[];
};

export const FIELD_SEPARATOR = '\u0000';

export const packCsv = (c: CsvContacts): PackedCsv => ({
  numbers: c.numbers.join('\n'),
  skipped: c.skipped,
  fieldKeys: c.fieldKeys,
  phoneColumn: c.phoneColumn,
  fieldColumns: c.fieldValues.map((v) => v.join(FIELD_SEPARATOR)),
});

/** Lines split per task: a million numbers split at once blocked the page for ~300 ms on a busy machine. */
const SPLIT_CHUNK = 20_000;

/** `text.split('\n')`, in chunks with a pause between them, so that the page keeps answering. */
export async function splitLinesInChunks(text: string, chunk = SPLIT_CHUNK): Promise<string[]> {
  const out: string[] = [];
  if (text === '') return out;
  let at = 0;
  for (;;) {
    for (let n = 0; n < chunk; n++) {
      const next = text.indexOf('\n', at);
      if (next === -1) {
        out.push(text.slice(at));
        return out;
      }
      out.push(text.slice(at, next));
      at = next + 1;
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

export const unpackCsv = async (p: PackedCsv): Promise<CsvUpload> => ({
  numbers: await splitLinesInChunks(p.numbers),
  skipped: p.skipped,
  fieldKeys: p.fieldKeys,
  fieldColumns: p.fieldColumns,
  phoneColumn: p.phoneColumn,
});

/** The first `n` values of a packed field column, without splitting the rest. */
export function firstValues(column: string, n: number): string[] {
  const out: string[] = [];
  let at = 0;
  while (out.length < n && at <= column.length) {
    const next = column.indexOf(FIELD_SEPARATOR, at);
    out.push(column.slice(at, next === -1 ? column.length : next));
    if (next === -1) break;
    at = next + 1;
  }
  return out;
}

/** read-excel-file's `readSheet`: imported by the caller (statically in the worker, lazily on the page). */
export type ReadSheet = (file: File) => Promise<unknown[][]>;

/** An .xlsx is a zip (`PK\x03\x04`): told apart by its first bytes, as the Contacts import does. */
export const startsLikeZip = (head: Uint8Array) =>
  head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;

/** A CSV, or an Excel sheet (.xlsx, its first sheet), as contacts: the same columns and numbers rule. */
export async function contactsOfFile(
  file: File,
  countryCode: string,
  loadReadSheet: () => Promise<ReadSheet>,
): Promise<CsvContacts> {
  let head: Uint8Array;
  try {
    head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
  } catch {
    throw new CsvReadError('read');
  }
  if (startsLikeZip(head)) {
    let rows: unknown[][];
    try {
      rows = await (await loadReadSheet())(file);
    } catch {
      throw new CsvReadError('parse');
    }
    return contactsOfRows(
      rows.map((r) => r.map(sheetCellText)),
      countryCode,
    );
  }
  let text: string;
  try {
    text = await file.text();
  } catch {
    throw new CsvReadError('read');
  }
  try {
    return parseContactsCsv(text, countryCode);
  } catch {
    throw new CsvReadError('parse');
  }
}

/** Numbers (or a field's values) per message from the worker: each arrives as its own small task. */
export const NUMBERS_PER_MESSAGE = 20_000;

/**
 * What the worker posts: the numbers and each field's values in parts of NUMBERS_PER_MESSAGE, then
 * the rest. One message with a million numbers took the page ~400 ms to receive.
 */
export type WorkerMessage =
  | { kind: 'numbers'; numbers: string }
  | { kind: 'field'; column: number; values: string }
  | { kind: 'done'; skipped: CsvContacts['skipped']; fieldKeys: string[]; phoneColumn: string }
  | { kind: 'error'; stage: 'read' | 'parse' };

/** The worker's side: posts `contacts` in parts. */
export function postContacts(contacts: CsvContacts, post: (m: WorkerMessage) => void): void {
  const { numbers } = contacts;
  for (let i = 0; i < numbers.length; i += NUMBERS_PER_MESSAGE)
    post({ kind: 'numbers', numbers: numbers.slice(i, i + NUMBERS_PER_MESSAGE).join('\n') });
  contacts.fieldValues.forEach((values, column) => {
    for (let i = 0; i < values.length; i += NUMBERS_PER_MESSAGE)
      post({ kind: 'field', column, values: values.slice(i, i + NUMBERS_PER_MESSAGE).join(FIELD_SEPARATOR) });
  });
  post({
    kind: 'done',
    skipped: contacts.skipped,
    fieldKeys: contacts.fieldKeys,
    phoneColumn: contacts.phoneColumn,
  });
}

/** The page's side: gathers the worker's messages into an upload; resolves on 'done'. */
export function contactsReceiver(
  resolve: (upload: CsvUpload) => void,
  reject: (err: CsvReadError) => void,
): (m: WorkerMessage) => void {
  const numbers: string[] = [];
  const parts = new Map<number, string[]>();
  return (m) => {
    if (m.kind === 'numbers') for (const n of m.numbers.split('\n')) numbers.push(n);
    else if (m.kind === 'field') parts.set(m.column, [...(parts.get(m.column) ?? []), m.values]);
    else if (m.kind === 'error') reject(new CsvReadError(m.stage));
    else
      resolve({
        numbers,
        skipped: m.skipped,
        fieldKeys: m.fieldKeys,
        fieldColumns: m.fieldKeys.map((_, k) => (parts.get(k) ?? []).join(FIELD_SEPARATOR)),
        phoneColumn: m.phoneColumn,
      });
  };
}

/**
 * Reads an uploaded CSV or .xlsx in a Web Worker (a million-line file parses for seconds: the
 * page must stay responsive meanwhile). Where workers do not exist (unit tests), it parses in place.
 */
export async function readContactsCsv(file: File, countryCode = DEFAULT_COUNTRY_CODE): Promise<CsvUpload> {
  if (typeof Worker === 'undefined') {
    const contacts = await contactsOfFile(file, countryCode, async () => {
      const { readSheet } = await import('read-excel-file/browser');
      return readSheet;
    });
    return unpackCsv(packCsv(contacts));
  }
  const worker = new Worker(new URL('./csv-contacts.worker.ts', import.meta.url), { type: 'module' });
  try {
    return await new Promise<CsvUpload>((resolve, reject) => {
      const receive = contactsReceiver(resolve, reject);
      worker.onmessage = (e: MessageEvent<WorkerMessage>) => receive(e.data);
      worker.onerror = () => reject(new CsvReadError('parse'));
      worker.postMessage({ file, countryCode });
    });
  } finally {
    worker.terminate();
  }
}
