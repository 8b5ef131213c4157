/**
 * CSV and print exports (DECISIONS.md, "exports"): CSV in UTF-8 with a BOM and RFC 4180
 * quoting, cells that a spreadsheet would run as a formula are defused with a leading `'`,
 * and print views escape every text they show.
 */

import { type Cell, csvField, guardFormula, toCsv } from '@wa/contract';

export { type Cell, csvField, guardFormula, toCsv };

/** Spec section 5: the alerts shown instead of an empty export. */
export const NO_DATA_TO_EXPORT = 'No data to export';
export const NO_DATA_TO_PRINT = 'No data to print';

/** How long the print window stays open after printing (spec section 9: about 500 ms). */
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

/** The print view's document: a title and a table, every text escaped. */
export function printHtml(
  title: string,
  headers: readonly string[],
  rows: readonly (readonly Cell[])[],
): string {
  const head = headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body = rows
    .map((row) => `<tr>${row.map((cell) => `<td>${escapeHtml(cell)}</td>`).join('')}</tr>`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 16px; color: #111; }
  h1 { font-size: 18px; margin: 0 0 4px; }
  p { font-size: 11px; margin: 0 0 12px; color: #555; }
  table { border-collapse: collapse; width: 100%; font-size: 11px; }
  th, td { border: 1px solid #999; padding: 4px 6px; text-align: left; vertical-align: top; word-break: break-word; }
  th { background: #eee; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>Printed ${escapeHtml(new Date().toLocaleString('en-IN'))}</p>
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
export function printTable(title: string, headers: readonly string[], rows: readonly (readonly Cell[])[]) {
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
  view.document.write(printHtml(title, headers, rows));
  view.document.close();
  view.focus();
  view.print();
  setTimeout(() => view.close(), PRINT_CLOSE_DELAY_MS);
  return true;
}
