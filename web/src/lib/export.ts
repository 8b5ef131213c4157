/**
 * CSV and print exports (docs/decisions.md, Exports): CSV in UTF-8 with a BOM and RFC 4180
 * quoting, cells that a spreadsheet would run as a formula are defused with a leading `'`,
 * and print views escape every text they show.
 */

import { type Cell, csvField, guardFormula, toCsv } from '@wa/contract';

export { type Cell, csvField, guardFormula, toCsv };

/** The alerts shown instead of an empty export. */
export const NO_DATA_TO_EXPORT = 'No data to export';
export const NO_DATA_TO_PRINT = 'No data to print';

/** How long the print window stays open after printing (about 500 ms). */
export const PRINT_CLOSE_DELAY_MS = 500;

/** Saves a file through a temporary link (no server round trip). */
export function downloadFile(fileName: string, content: string, mime: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: mime }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked on the next turn: the click has started the download by then.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * Downloads rows as a CSV file; with no rows, alerts 'No data to export' instead.
 * Returns whether a file was produced.
 */
export function exportCsv(fileName: string, headers: readonly string[], rows: readonly (readonly Cell[])[]) {
  if (rows.length === 0) {
    window.alert(NO_DATA_TO_EXPORT);
    return false;
  }
  downloadFile(fileName, toCsv(headers, rows), 'text/csv;charset=utf-8');
  return true;
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: Cell): string {
  if (value === null || value === undefined) return '';
  return String(value).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/**
 * How a print cell may wrap: a short value (a number, a date, 'SUPER ADMIN') stays on one line,
 * since a narrow column would split it at a hyphen or mid-word; a word too long for any column
 * (a link, an id) may break anywhere; other text wraps between words.
 */
const LONG_WORD = /\S{25,}/;
const SHORT_CELL = 20;
function cellHtml(cell: Cell): string {
  const text = String(cell ?? '');
  const kind = LONG_WORD.test(text) ? ' class="long"' : text.length <= SHORT_CELL ? ' class="short"' : '';
  return `<td${kind}>${escapeHtml(cell)}</td>`;
}

/**
 * The print view's document: a title, an optional line under it (the report's range), and a
 * table, every text escaped. Printed in landscape; words are never split inside a column.
 */
export function printHtml(
  title: string,
  headers: readonly string[],
  rows: readonly (readonly Cell[])[],
  subtitle?: string,
): string {
  const head = headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body = rows.map((row) => `<tr>${row.map(cellHtml).join('')}</tr>`).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>
  @page { size: landscape; margin: 10mm; }
  body { font-family: system-ui, sans-serif; margin: 16px; color: #111; }
  h1 { font-size: 18px; margin: 0 0 4px; }
  h2 { font-size: 13px; margin: 0 0 4px; font-weight: 600; }
  p { font-size: 11px; margin: 0 0 12px; color: #555; }
  table { border-collapse: collapse; width: 100%; font-size: 10px; }
  th, td { border: 1px solid #999; padding: 3px 4px; text-align: left; vertical-align: top; overflow-wrap: break-word; hyphens: none; }
  td.long { word-break: break-all; }
  td.short { white-space: nowrap; }
  th { background: #eee; }
  thead { display: table-header-group; }
  tr { break-inside: avoid; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${subtitle ? `<h2>${escapeHtml(subtitle)}</h2>\n` : ''}<p>Printed ${escapeHtml(new Date().toLocaleString('en-IN'))}</p>
<table>
<thead><tr>${head}</tr></thead>
<tbody>
${body}
</tbody>
</table>
</body>
</html>`;
}

/**
 * Opens the print view in a new window, prints it and closes it about 500 ms later; with no
 * rows, alerts 'No data to print' instead. Returns whether a view was opened.
 */
export function printTable(
  title: string,
  headers: readonly string[],
  rows: readonly (readonly Cell[])[],
  subtitle?: string,
) {
  if (rows.length === 0) {
    window.alert(NO_DATA_TO_PRINT);
    return false;
  }
  const view = window.open('', '_blank');
  if (!view) {
    window.alert('The print view was blocked. Please allow pop-ups for this site.');
    return false;
  }
  view.document.open();
  view.document.write(printHtml(title, headers, rows, subtitle));
  view.document.close();
  view.focus();
  view.print();
  setTimeout(() => view.close(), PRINT_CLOSE_DELAY_MS);
  return true;
}
