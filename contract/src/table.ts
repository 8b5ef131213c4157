import { phoneOrNull } from './phone.ts';

/**
 * The columns of an uploaded table (a CSV's or an .xlsx sheet's rows), found the same way by the
 * server's contact import and the web's bulk page and contacts preview (docs/decisions.md, Phone numbers).
 */

/** One spreadsheet cell as text, as the import and the bulk page read an .xlsx (numbers as written). */
export function sheetCellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return value instanceof Date ? value.toISOString() : String(value);
}

/** Header words that name a phone column, English and Hindi. */
const PHONE_HEADER =
  /phone|mobile|number|whats\s*app|contact|\btel\b|telephone|cell|फ़ोन|फोन|मोबाइल|मोबाईल|नंबर|नम्बर|संपर्क|सम्पर्क|व्हाट्सएप|व्हाट्सऐप|दूरभाष/i;
/** Header words that name the person (the `name` field). */
const NAME_HEADER = /^(name|full\s*name|display\s*name|contact\s*name|नाम|पूरा\s*नाम)$/i;

/** A field key from a header: lower-case, spaces → `_`, only letters, digits and `_` (docs/decisions.md, Personalised text). */
export function fieldKey(header: string): string {
  return header
    .trim()
    .toLowerCase()
    .replace(/\s+/g, '_')
    .replace(/[^\p{L}\p{N}_]/gu, '');
}

export type TableColumns = {
  /** Whether the first row names the columns (false when its cells parse as numbers). */
  hasHeader: boolean;
  /** Column titles (the header's, or `column_1`…). */
  headers: string[];
  /** Index of the phone column, -1 when no column holds numbers. */
  phoneColumn: number;
  /** Every other column as a field: its index and key (`name` when a header says so). */
  fields: { column: number; key: string }[];
};

/**
 * Finds the columns of a table from its first rows (docs/decisions.md, Phone numbers): the phone column
 * by its header — among several such headers the one whose values parse as numbers — or else by
 * its content; `preferred` (a header or a 0-based index as text) wins when it names a column.
 */
export function detectColumns(
  sample: string[][],
  defaultCallingCode: string,
  preferred?: string,
): TableColumns {
  const width = sample.reduce((w, r) => Math.max(w, r.length), 0);
  const first = sample[0] ?? [];
  const parses = (cell: string | undefined) =>
    cell !== undefined && phoneOrNull(cell, defaultCallingCode) !== null;
  const hasHeader = first.length > 0 && !first.some((c) => parses(c));
  const headers = Array.from({ length: width }, (_, i) => {
    const h = hasHeader ? (first[i] ?? '').trim() : '';
    return h === '' ? `column_${i + 1}` : h;
  });
  const data = hasHeader ? sample.slice(1) : sample;
  const score = (column: number) => data.reduce((n, r) => n + (parses(r[column]) ? 1 : 0), 0);

  let phoneColumn = -1;
  if (preferred !== undefined && preferred.trim() !== '') {
    const byName = headers.findIndex((h) => h.toLowerCase() === preferred.trim().toLowerCase());
    const byIndex = /^[0-9]+$/.test(preferred.trim()) ? Number(preferred.trim()) : -1;
    phoneColumn = byName !== -1 ? byName : byIndex >= 0 && byIndex < width ? byIndex : -1;
  }
  if (phoneColumn === -1 && hasHeader) {
    let bestScore = 0;
    headers.forEach((h, i) => {
      if (!PHONE_HEADER.test(h)) return;
      const s = score(i);
      if (s > bestScore) {
        bestScore = s;
        phoneColumn = i;
      }
    });
  }
  if (phoneColumn === -1) {
    let bestScore = 0;
    for (let i = 0; i < width; i++) {
      const s = score(i);
      if (s > bestScore) {
        bestScore = s;
        phoneColumn = i;
      }
    }
  }

  const fields: { column: number; key: string }[] = [];
  const used = new Set<string>();
  const nameColumn = hasHeader ? headers.findIndex((h) => NAME_HEADER.test(h.trim())) : -1;
  const fallbackName =
    nameColumn === -1 && hasHeader
      ? headers.findIndex((h, i) => i !== phoneColumn && /name|नाम/i.test(h))
      : -1;
  for (let i = 0; i < width; i++) {
    if (i === phoneColumn) continue;
    let key = i === nameColumn || i === fallbackName ? 'name' : fieldKey(headers[i] as string);
    if (key === '') key = `column_${i + 1}`;
    let unique = key;
    for (let k = 2; used.has(unique); k++) unique = `${key}_${k}`;
    used.add(unique);
    fields.push({ column: i, key: unique });
  }
  return { hasHeader, headers, phoneColumn, fields };
}
