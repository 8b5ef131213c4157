import { detectDelimiter, readCsvRows, sheetCellText, TEXTS } from '@wa/contract';
import { startsLikeZip } from '../../lib/csv-contacts.ts';

/** Rows the server reads before it decides the columns (server/src/contacts/service.ts): the preview uses as many. */
export const SAMPLE_ROWS = 50;
/** Enough of a CSV for 50 rows of a phone's contact export. */
const CSV_SAMPLE_BYTES = 256 * 1024;

export class NotATableError extends Error {
  constructor() {
    super(TEXTS.notATable);
  }
}

const nonEmpty = (row: string[]) => row.some((c) => c.trim() !== '');

/**
 * The first non-empty rows of an upload, as text, read the way the server's import reads them:
 * an .xlsx (a zip) through read-excel-file, anything else as CSV with its delimiter detected.
 */
export async function readTableSample(file: File): Promise<string[][]> {
  const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
  if (startsLikeZip(head)) {
    const { readSheet } = await import('read-excel-file/browser');
    let rows: unknown[][];
    try {
      rows = await readSheet(file);
    } catch {
      throw new NotATableError();
    }
    return rows
      .map((row) => row.map(sheetCellText))
      .filter(nonEmpty)
      .slice(0, SAMPLE_ROWS);
  }
  const cut = file.size > CSV_SAMPLE_BYTES;
  const text = await file.slice(0, CSV_SAMPLE_BYTES).text();
  // No text file holds NUL bytes: a photo or an archive picked by mistake.
  if (text.includes('\u0000')) throw new NotATableError();
  const rows = readCsvRows(text, detectDelimiter(text.slice(0, 64 * 1024)));
  // The last row of a cut sample may be cut short.
  if (cut) rows.pop();
  return rows.filter(nonEmpty).slice(0, SAMPLE_ROWS);
}

/** A list name from a file name: 'contacts (2).xlsx' → 'contacts (2)'. */
export const listNameOf = (fileName: string) => fileName.replace(/\.[^.]+$/, '').trim();
