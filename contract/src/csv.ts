/**
 * CSV exports, the same in the browser and on the server (DECISIONS.md, "exports"): UTF-8 with a
 * BOM, RFC 4180 quoting, CRLF, and cells that a spreadsheet would run as a formula defused with a
 * leading `'`.
 */

export type Cell = string | number | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

/** A cell beginning with =, +, -, @, tab or CR is prefixed with `'` so that it stays text. */
export function guardFormula(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** One CSV field: guarded, then quoted when it holds a comma, a quote, CR or LF (RFC 4180). */
export function csvField(value: Cell): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'number' ? String(value) : guardFormula(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV line with its CRLF. */
export const csvLine = (cells: readonly Cell[]): string => `${cells.map(csvField).join(',')}\r\n`;

/** The UTF-8 byte order mark that starts every exported file (spreadsheets then read UTF-8). */
export const CSV_BOM = '\uFEFF';

/** The whole file: a BOM, the header line, then one line per row, lines ended by CRLF. */
export function toCsv(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  return `${CSV_BOM}${[headers, ...rows].map(csvLine).join('')}`;
}
