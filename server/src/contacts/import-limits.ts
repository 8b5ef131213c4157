import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * What one contact import may take: a file is refused with a 400 that says which
 * limit it passed, before the limit's worth of work is done. docs/api.md's "Contact lists and imports"
 * section lists them.
 */
export const IMPORT_LIMITS = {
  /** Bytes of the uploaded file (it is spooled to a temporary file, never held in memory). */
  maxUploadBytes: 200 * 1024 * 1024,
  /** Rows with something in them (a header counts); reading stops at the first one over. */
  maxRows: 1_000_000,
  maxColumns: 200,
  maxCellChars: 1000,
  /** Characters of all the fields of an import together: what it may add to the database. */
  maxTotalChars: 256 * 1024 * 1024,
  /** What an .xlsx's sheet may inflate to (a 1,000,000-row sheet of a few columns is ~180 MB). */
  maxSheetBytes: 512 * 1024 * 1024,
  /** What its shared strings may inflate to (they are held in memory while the sheet is read). */
  maxSharedStringsBytes: 64 * 1024 * 1024,
  /** Contact lists one user may keep. */
  maxListsPerUser: 100,
} as const;

const n = (v: number) => v.toLocaleString('en-US');

export const IMPORT_MESSAGES = {
  tooLarge: 'The file is larger than 200 MB',
  tooManyRows: `The file has more than ${n(IMPORT_LIMITS.maxRows)} rows`,
  tooManyColumns: (row: number) => `Row ${n(row)} has more than ${IMPORT_LIMITS.maxColumns} columns`,
  cellTooLong: (row: number) =>
    `Row ${n(row)} has a cell longer than ${n(IMPORT_LIMITS.maxCellChars)} characters`,
  tooMuchText: 'The file holds more than 256 MB of text',
  sheetTooLarge: 'The sheet is larger than 512 MB once unzipped',
  tooManyLists: `You have ${IMPORT_LIMITS.maxListsPerUser} contact lists: delete one to add another`,
  importRunning: 'An import is already running',
} as const;

/**
 * Keeps the event loop free during a long parse: call it often; it gives other requests a turn
 * once `sliceMs` of work has passed since the last turn.
 */
export function turnTaker(sliceMs = 10): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    const now = performance.now();
    if (now - since < sliceMs) return undefined;
    return nextTurn().then(() => {
      since = performance.now();
    });
  };
}

/** The file is not a table this reader takes (a photo, a damaged or encrypted workbook). */
export class NotATable extends Error {}
