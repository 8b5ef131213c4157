import { parsePhoneNumberFromString } from 'libphonenumber-js';

/**
 * The one phone rule of DECISIONS.md (Phone numbers), shared by the server's contact import and
 * the web's bulk page: numbers people type or upload are parsed with libphonenumber-js, the
 * default region given by DEFAULT_COUNTRY_CODE (a calling code such as '91'), and kept as
 * country code + digits ('919800015838').
 */
export type PhoneParse = { number: string } | { reason: 'empty' | 'invalid' };

/** Google Contacts writes several numbers of one contact into one cell, separated by `:::`. */
const MULTI = ':::';
/** A spreadsheet that stored the number as a float writes `919800015838.0` or `9.19800015838E+11`. */
const FLOAT_TAIL = /\.0+$/;
const EXPONENT = /^[0-9](\.[0-9]+)?e\+?[0-9]+$/i;

/** The first number of a cell (Google Contacts' `+91 … ::: +91 …` gives its first), trimmed. */
export function firstNumberOfCell(cell: string): string {
  const at = cell.indexOf(MULTI);
  return (at === -1 ? cell : cell.slice(0, at)).trim();
}

/**
 * A cell as a stored number, or why not: 'empty' (nothing there), 'invalid' (not a number
 * libphonenumber-js accepts). `+`, `00` and national `0` prefixes, spaces, dashes and brackets
 * are handled; a number written with its country code but no `+` is accepted too.
 */
export function parsePhone(cell: string, defaultCallingCode: string): PhoneParse {
  let text = firstNumberOfCell(cell);
  if (text === '') return { reason: 'empty' };
  if (EXPONENT.test(text)) {
    const value = Number(text);
    if (!Number.isSafeInteger(value)) return { reason: 'invalid' };
    text = String(value);
  } else {
    text = text.replace(FLOAT_TAIL, '');
  }
  if (text.startsWith('00')) text = `+${text.slice(2)}`;
  // Eleven digits or more without `+` or a national `0` are most likely written with their
  // country code ('14155552671', '919800015838'): read them so first, then in the region.
  const digits = text.replace(/[^0-9]/g, '');
  const international = !text.startsWith('+') && digits.length >= 11 && !digits.startsWith('0');
  const attempts = international ? [`+${text}`, text] : [text];
  for (const attempt of attempts) {
    const parsed = parsePhoneNumberFromString(attempt, { defaultCallingCode });
    if (parsed?.isValid()) return { number: parsed.number.slice(1) };
  }
  return { reason: 'invalid' };
}

/** The stored number of a cell, or null. */
export function phoneOrNull(cell: string, defaultCallingCode: string): string | null {
  const result = parsePhone(cell, defaultCallingCode);
  return 'number' in result ? result.number : null;
}

/** What the rule says to a person, the same wherever a number enters (form, file, API). */
export const PHONE_TEXTS = {
  empty: 'Please enter a phone number',
  invalid: (input: string) => `Invalid phone number: ${input}`,
} as const;

/** A typed number as stored, or the message that says why it is not one. */
export function checkPhone(
  input: string,
  defaultCallingCode: string,
): { number: string } | { error: string } {
  const result = parsePhone(input, defaultCallingCode);
  if ('number' in result) return result;
  return { error: result.reason === 'empty' ? PHONE_TEXTS.empty : PHONE_TEXTS.invalid(input.trim()) };
}

/** One spreadsheet cell as text, as the import and the bulk page read an .xlsx (numbers as written). */
export function sheetCellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return value instanceof Date ? value.toISOString() : String(value);
}

// ---------------------------------------------------------------------------------------------
// Tables: delimiter, rows, columns

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

/**
 * An incremental RFC 4180 reader: feed text chunks, take whole rows (quoted fields may hold the
 * delimiter, quotes and line breaks). Streams a million-line file in constant memory.
 */
export class CsvRowReader {
  private field = '';
  private row: string[] = [];
  private quoted = false;
  private afterQuote = false;
  private pendingCR = false;
  private started = false;

  constructor(private readonly delimiter: Delimiter) {}

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
        if (q === -1) {
          this.field += text.slice(i);
          break;
        }
        this.field += text.slice(i, q);
        i = q + 1;
        this.quoted = false;
        this.afterQuote = true;
        continue;
      }
      if (ch === '"') {
        // `""` inside a quoted field is one quote; a quote opening a field starts quoting.
        if (this.afterQuote) this.field += '"';
        this.quoted = true;
        this.afterQuote = false;
        i++;
        continue;
      }
      this.afterQuote = false;
      if (ch === d) {
        this.row.push(this.field);
        this.field = '';
        i++;
      } else if (ch === '\n' || ch === '\r') {
        this.row.push(this.field);
        rows.push(this.row);
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
    return rows;
  }

  /** The last row when the text does not end with a line break. */
  end(): string[][] {
    if (this.field === '' && this.row.length === 0) return [];
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

/** Header words that name a phone column, English and Hindi. */
const PHONE_HEADER =
  /phone|mobile|number|whats\s*app|contact|\btel\b|telephone|cell|फ़ोन|फोन|मोबाइल|मोबाईल|नंबर|नम्बर|संपर्क|सम्पर्क|व्हाट्सएप|व्हाट्सऐप|दूरभाष/i;
/** Header words that name the person (the `name` field). */
const NAME_HEADER = /^(name|full\s*name|display\s*name|contact\s*name|नाम|पूरा\s*नाम)$/i;

/** A field key from a header: lower-case, spaces → `_`, only letters, digits and `_` (DECISIONS.md). */
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
 * Finds the columns of a table from its first rows (DECISIONS.md, issue 15): the phone column
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
