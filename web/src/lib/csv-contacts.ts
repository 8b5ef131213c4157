import Papa from 'papaparse';

/** `DEFAULT_COUNTRY_CODE` of DECISIONS.md: a 10-digit number is taken as Indian. */
export const DEFAULT_COUNTRY_CODE = '91';

export type CsvContacts = {
  /** Phone numbers as digits only, in file order, each once. */
  numbers: string[];
  /** Why lines were left out (empty lines are not counted). */
  skipped: { noDigits: number; invalid: number; duplicates: number };
};

/** Spaces, dashes, dots and brackets are layout, not part of the number (DECISIONS.md). */
const LAYOUT = /[\s\-.()[\]]/g;

/**
 * The number in one CSV cell as digits, or why it is not one: 'noDigits' (a header such as
 * `phone`), 'invalid' (anything else than a number of 8–15 digits once cleaned).
 */
export function cleanPhoneNumber(
  cell: string,
  countryCode = DEFAULT_COUNTRY_CODE,
): { number: string } | { reason: 'noDigits' | 'invalid' } {
  const trimmed = cell.trim();
  if (!/[0-9]/.test(trimmed)) return { reason: 'noDigits' };
  let digits = trimmed.replace(LAYOUT, '');
  if (digits.startsWith('+')) digits = digits.slice(1);
  if (!/^[0-9]+$/.test(digits)) return { reason: 'invalid' };
  if (digits.length === 10) digits = `${countryCode}${digits}`;
  if (digits.length < 8 || digits.length > 15) return { reason: 'invalid' };
  return { number: digits };
}

/**
 * Reads an uploaded CSV as DECISIONS.md says: the first column of each non-empty line, trimmed
 * and cleaned; header and invalid lines skipped and counted; duplicates removed. Papaparse
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
  const numbers: string[] = [];
  const seen = new Set<string>();
  const skipped = { noDigits: 0, invalid: 0, duplicates: 0 };
  for (const row of rows) {
    const cell = row[0] ?? '';
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
    }
  }
  return { numbers, skipped };
}

/** How many lines were left out and why, in words for the upload area. */
export function describeSkipped(skipped: CsvContacts['skipped']): string | null {
  const total = skipped.noDigits + skipped.invalid + skipped.duplicates;
  if (total === 0) return null;
  const parts: string[] = [];
  if (skipped.noDigits) parts.push(`${skipped.noDigits} without a number (header or text)`);
  if (skipped.invalid) parts.push(`${skipped.invalid} invalid (not 8–15 digits)`);
  if (skipped.duplicates) parts.push(`${skipped.duplicates} duplicate${skipped.duplicates === 1 ? '' : 's'}`);
  return `Skipped ${total} line${total === 1 ? '' : 's'}: ${parts.join(', ')}.`;
}

/** Reading the file failed ('Error reading the file') or parsing it did ('Error processing the CSV file'). */
export class CsvReadError extends Error {
  constructor(readonly stage: 'read' | 'parse') {
    super(stage === 'read' ? 'Error reading the file' : 'Error processing the CSV file');
  }
}

type WorkerAnswer = { ok: true; result: CsvContacts } | { ok: false; stage: 'read' | 'parse' };

/**
 * Reads an uploaded CSV in a Web Worker (a million-line file parses for seconds: the page must
 * stay responsive meanwhile). Where workers do not exist (unit tests), it parses in place.
 */
export async function readContactsCsv(file: File, countryCode = DEFAULT_COUNTRY_CODE): Promise<CsvContacts> {
  if (typeof Worker === 'undefined') {
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
  const worker = new Worker(new URL('./csv-contacts.worker.ts', import.meta.url), { type: 'module' });
  try {
    const answer = await new Promise<WorkerAnswer>((resolve, reject) => {
      worker.onmessage = (e: MessageEvent<WorkerAnswer>) => resolve(e.data);
      worker.onerror = () => reject(new CsvReadError('parse'));
      worker.postMessage({ file, countryCode });
    });
    if (!answer.ok) throw new CsvReadError(answer.stage);
    return answer.result;
  } finally {
    worker.terminate();
  }
}
