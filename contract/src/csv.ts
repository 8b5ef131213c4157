/**
 * CSV, read and written, the same in the browser and on the server: the one reader that the
 * contact import, the contacts preview and the bulk page's upload use, and the exports' writer.
 */

// ---------------------------------------------------------------------------------------------
// Reading: delimiter and rows (RFC 4180, streamed)

export type Delimiter = ',' | ';' | '\t';
const DELIMITERS: Delimiter[] = [',', ';', '\t'];

/**
 * The delimiter of a CSV from its first lines: the candidate found most often on every line
 * (outside quotes); `,` when none is.
 */
export function detectDelimiter(sample: string): Delimiter {
  const lines = sample
    .split(/\r\n|\n|\r/)
    .filter((l) => l.trim() !== '')
    .slice(0, 20);
  // The last line of a sample may be cut short.
  if (lines.length > 2) lines.pop();
  let best: Delimiter = ',';
  let bestScore = 0;
  for (const d of DELIMITERS) {
    let min = Number.POSITIVE_INFINITY;
    for (const line of lines) min = Math.min(min, countOutsideQuotes(line, d));
    if (lines.length > 0 && min > bestScore) {
      best = d;
      bestScore = min;
    }
  }
  return best;
}

function countOutsideQuotes(line: string, d: string): number {
  let n = 0;
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === d && !quoted) n++;
  }
  return n;
}

/** Thrown by a reader given limits when a row has too many cells or a cell too many characters. */
export class TableLimitError extends Error {
  constructor(
    readonly kind: 'columns' | 'cell',
    /** The 1-based row (line of the table) it was found in. */
    readonly row: number,
  ) {
    super(`table limit: ${kind} in row ${row}`);
  }
}

export type TableLimits = { maxColumns: number; maxCellChars: number };

/**
 * An incremental RFC 4180 reader: feed text chunks, take whole rows (quoted fields may hold the
 * delimiter, quotes and line breaks). Streams a million-line file in constant memory; with
 * `limits`, a row or a cell larger than them throws TableLimitError as soon as it is read, so a
 * hostile line never builds up in memory.
 */
export class CsvRowReader {
  private field = '';
  private row: string[] = [];
  private quoted = false;
  private afterQuote = false;
  private pendingCR = false;
  private started = false;
  private rowsDone = 0;
  /** The open quote began inside a field (`5" screen`), not at its start. */
  private quoteInField = false;
  /**
   * The text's quotes are not RFC 4180's in a way that can hide rows: a quote opened inside a
   * field ran over a line break, or the text ended inside quotes. A reader that must not lose a
   * line without a word (the bulk page) then reads the text line by line instead.
   */
  strayQuote = false;

  constructor(
    private readonly delimiter: Delimiter,
    private readonly limits?: TableLimits,
  ) {}

  private check(): void {
    const l = this.limits;
    if (!l) return;
    // Called before a field is added: a full row plus this field is one column too many.
    if (this.row.length >= l.maxColumns) throw new TableLimitError('columns', this.rowsDone + 1);
    if (this.field.length > l.maxCellChars) throw new TableLimitError('cell', this.rowsDone + 1);
  }

  /** The rows completed by this chunk. */
  push(chunk: string): string[][] {
    const rows: string[][] = [];
    let text = chunk;
    if (!this.started) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const d = this.delimiter;
    let i = 0;
    const n = text.length;
    while (i < n) {
      const ch = text[i] as string;
      if (this.pendingCR) {
        this.pendingCR = false;
        if (ch === '\n') {
          i++;
          continue;
        }
      }
      if (this.quoted) {
        const q = text.indexOf('"', i);
        const piece = q === -1 ? text.slice(i) : text.slice(i, q);
        if (this.quoteInField && (piece.includes('\n') || piece.includes('\r'))) this.strayQuote = true;
        this.field += piece;
        if (q === -1) break;
        i = q + 1;
        this.quoted = false;
        this.afterQuote = true;
        continue;
      }
      if (ch === '"') {
        // `""` inside a quoted field is one quote; a quote opening a field starts quoting.
        if (this.afterQuote) this.field += '"';
        this.quoteInField = !this.afterQuote && this.field !== '';
        this.quoted = true;
        this.afterQuote = false;
        i++;
        continue;
      }
      this.afterQuote = false;
      if (ch === d) {
        this.check();
        this.row.push(this.field);
        this.field = '';
        i++;
      } else if (ch === '\n' || ch === '\r') {
        this.check();
        this.row.push(this.field);
        rows.push(this.row);
        this.rowsDone++;
        this.row = [];
        this.field = '';
        this.pendingCR = ch === '\r';
        i++;
      } else {
        // Plain run up to the next special character.
        let j = i + 1;
        while (j < n) {
          const c = text[j];
          if (c === d || c === '\n' || c === '\r' || c === '"') break;
          j++;
        }
        this.field += text.slice(i, j);
        i = j;
      }
    }
    if (this.quoted || this.field !== '') this.check();
    return rows;
  }

  /** The last row when the text does not end with a line break. */
  end(): string[][] {
    if (this.quoted) this.strayQuote = true;
    if (this.field === '' && this.row.length === 0) return [];
    this.check();
    this.row.push(this.field);
    const rows = [this.row];
    this.row = [];
    this.field = '';
    return rows;
  }
}

/** Whole-text convenience for small inputs (previews, tests). */
export function readCsvRows(
  text: string,
  delimiter: Delimiter = detectDelimiter(text.slice(0, 64 * 1024)),
): string[][] {
  const reader = new CsvRowReader(delimiter);
  return [...reader.push(text), ...reader.end()];
}

// ---------------------------------------------------------------------------------------------
// Writing: exports

/**
 * CSV exports, the same in the browser and on the server (docs/decisions.md, Exports): UTF-8 with a
 * BOM, RFC 4180 quoting (also of cells with `;` or a tab, and of every defused cell), CRLF, and
 * cells that a spreadsheet would run as a formula defused with a leading `'`.
 */

export type Cell = string | number | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

/** A cell beginning with =, +, -, @, tab or CR is prefixed with `'` so that it stays text. */
export function guardFormula(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/**
 * One CSV field: guarded, then quoted when it holds a comma, a quote, CR or LF (RFC 4180), a
 * semicolon or a tab (the list separator of spreadsheets in many regions: a bare `a;=1+1` would
 * split there and run `=1+1`), or when it was guarded.
 */
export function csvField(value: Cell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const text = guardFormula(value);
  return text !== value || /[",;\t\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV line with its CRLF. */
export const csvLine = (cells: readonly Cell[]): string => `${cells.map(csvField).join(',')}\r\n`;

/** The UTF-8 byte order mark that starts every exported file (spreadsheets then read UTF-8). */
export const CSV_BOM = '\uFEFF';

/** The whole file: a BOM, the header line, then one line per row, lines ended by CRLF. */
export function toCsv(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  return `${CSV_BOM}${[headers, ...rows].map(csvLine).join('')}`;
}
