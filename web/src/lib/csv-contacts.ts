import { detectColumns, parsePhone } from '@wa/contract';
import Papa from 'papaparse';

/** `DEFAULT_COUNTRY_CODE` of DECISIONS.md until /api/meta answers: numbers without a country code are Indian. */
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
};

/** Rows read to find the columns (the server's contact import reads as many). */
const SAMPLE_ROWS = 50;

/**
 * The number in one CSV cell, or why it is not one: 'noDigits' (a header such as `phone`),
 * 'invalid' (not a number libphonenumber-js accepts). The rule is contract/phone.ts's, the
 * one the server's contact import uses (DECISIONS.md, Phone numbers).
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
 * Reads an uploaded CSV as DECISIONS.md says: the number of each non-empty line, trimmed and
 * cleaned (the first column, or the phone column of a file with a header, issue 15); header and
 * invalid lines skipped and counted; duplicates removed; a header's other columns kept as
 * fields for `{{field}}`. Papaparse
 * handles quoted fields and CRLF; a UTF-8 BOM is dropped first.
 */
export function parseContactsCsv(text: string, countryCode = DEFAULT_COUNTRY_CODE): CsvContacts {
  // No text file holds NUL bytes: this is binary data (a photo, a spreadsheet) named .csv.
  if (text.includes('\u0000')) throw new Error('not a text file');
  const input = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const parsed = Papa.parse<string[]>(input, { skipEmptyLines: 'greedy', delimiter: ',' });
  // A quote opened and not closed as RFC 4180 wants (`=HYPERLINK("a","b"),x`) makes Papaparse
  // read the following lines as one field, hiding their numbers without a word: then each
  // line is read on its own, as DECISIONS.md says (the first column of each non-empty line).
  const rows = parsed.errors.some((e) => e.type === 'Quotes')
    ? input
        .split(/\r\n|\n|\r/)
        .filter((line) => line.trim() !== '')
        .map((line) => [Papa.parse<string[]>(line, { delimiter: ',' }).data[0]?.[0] ?? ''])
    : parsed.data;
  // The columns as contract/phone.ts finds them (the contact import's rule): a first row whose
  // cells hold no number is a header, the phone column is found by its header or its content,
  // the other columns of a file with a header become fields. A file without a header keeps the
  // spec's rule: the number is in the first column.
  const sample = rows.slice(0, SAMPLE_ROWS).filter((r) => r.some((c) => c.trim() !== ''));
  const columns = detectColumns(sample, countryCode);
  const hasHeader = columns.hasHeader && sample.length > 0;
  const phoneColumn = hasHeader && columns.phoneColumn !== -1 ? columns.phoneColumn : 0;
  const fields = hasHeader ? columns.fields.filter((f) => f.column !== phoneColumn) : [];
  const fieldValues: string[][] = fields.map(() => []);
  const numbers: string[] = [];
  const seen = new Set<string>();
  const skipped = { noDigits: 0, invalid: 0, duplicates: 0 };
  let header = hasHeader;
  for (const row of rows) {
    const cell = row[phoneColumn] ?? '';
    if (header && row.some((c) => c.trim() !== '')) {
      // The header row: a line without a number, as DECISIONS.md counts it.
      header = false;
      skipped.noDigits++;
      continue;
    }
    if (cell.trim() === '') {
      skipped.noDigits++;
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
  return { numbers, skipped, fieldKeys: fields.map((f) => f.key), fieldValues };
}

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
  fieldColumns: c.fieldValues.map((v) => v.join(FIELD_SEPARATOR)),
});

/** Lines split per task: a million numbers split at once blocked the page for ~300 ms on a busy machine. */
const SPLIT_CHUNK = 50_000;

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

type WorkerAnswer = { ok: true; result: PackedCsv } | { ok: false; stage: 'read' | 'parse' };

/**
 * Reads an uploaded CSV in a Web Worker (a million-line file parses for seconds: the page must
 * stay responsive meanwhile). Where workers do not exist (unit tests), it parses in place.
 */
export async function readContactsCsv(file: File, countryCode = DEFAULT_COUNTRY_CODE): Promise<CsvUpload> {
  if (typeof Worker === 'undefined') {
    let text: string;
    try {
      text = await file.text();
    } catch {
      throw new CsvReadError('read');
    }
    try {
      return unpackCsv(packCsv(parseContactsCsv(text, countryCode)));
    } catch {
      throw new CsvReadError('parse');
    }
  }
  const worker = new Worker(new URL('./csv-contacts.worker.ts', import.meta.url), { type: 'module' });
  try {
    const answer = await new Promise<WorkerAnswer>((resolve, reject) => {
      worker.onmessage = (e: MessageEvent<WorkerAnswer>) => resolve(e.data);
      worker.onerror = () => reject(new CsvReadError('parse'));
      worker.postMessage({ file, countryCode });
    });
    if (!answer.ok) throw new CsvReadError(answer.stage);
    return unpackCsv(answer.result);
  } finally {
    worker.terminate();
  }
}
