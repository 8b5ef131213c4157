import path from 'node:path/posix';
import { sheetCellText, TableLimitError } from '@wa/contract';
import { badRequest } from '../errors.ts';
import { IMPORT_LIMITS, IMPORT_MESSAGES, NotATable, turnTaker } from './import-limits.ts';
import { attribute, decodeXmlText, XmlScanner, XmlTooLarge } from './xml-scanner.ts';
import { type ZipEntry, ZipEntryTooLarge, ZipError, zipEntries, zipEntryBytes } from './zip-entries.ts';

/**
 * The first sheet of an .xlsx on disk as rows of text, read as it inflates: the sheet
 * is never whole in memory, reading stops when the caller stops, and a cell past the column
 * limit or longer than the cell limit ends it at once. Cells read as read-excel-file read them
 * before (numbers as written, dates as ISO timestamps, booleans as true/false).
 */
export async function* xlsxRows(file: string): AsyncGenerator<string[]> {
  try {
    const entries = await zipEntries(file);
    const book = await workbookParts(file, entries);
    const shared = book.sharedStrings ? await sharedStrings(file, book.sharedStrings) : [];
    const dates = book.styles ? await dateStyles(file, book.styles) : new Set<number>();
    yield* sheetRows(file, book.sheet, shared, dates, book.date1904);
  } catch (e) {
    if (e instanceof ZipError || e instanceof XmlTooLarge) throw new NotATable();
    throw e;
  }
}

const entryOf = (entries: Map<string, ZipEntry>, name: string) => {
  const entry = entries.get(name);
  if (!entry) throw new NotATable();
  return entry;
};

/** A small part (workbook, relationships) whole, as text. */
async function smallPart(file: string, entry: ZipEntry): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    for await (const c of zipEntryBytes(file, entry, 4 * 1024 * 1024)) chunks.push(c);
  } catch (e) {
    if (e instanceof ZipEntryTooLarge) throw new NotATable();
    throw e;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Every tag named `name` in a small part, as its attribute text. */
function tagsNamed(xml: string, name: string): string[] {
  const found: string[] = [];
  new XmlScanner({
    open: (tag, attrs) => {
      if (tag === name) found.push(attrs);
    },
    close: () => {},
    text: () => {},
  }).push(xml);
  return found;
}

type Relationship = { target: string; type: string };

async function relationships(
  file: string,
  entries: Map<string, ZipEntry>,
  of: string,
): Promise<Map<string, Relationship>> {
  const relsPath = path.join(path.dirname(of), '_rels', `${path.basename(of)}.rels`);
  const entry = entries.get(relsPath);
  const map = new Map<string, Relationship>();
  if (!entry) return map;
  for (const attrs of tagsNamed(await smallPart(file, entry), 'Relationship')) {
    const target = attribute(attrs, 'Target') ?? '';
    const resolved = target.startsWith('/') ? target.slice(1) : path.join(path.dirname(of), target);
    map.set(attribute(attrs, 'Id') ?? '', { target: resolved, type: attribute(attrs, 'Type') ?? '' });
  }
  return map;
}

async function workbookParts(file: string, entries: Map<string, ZipEntry>) {
  const root = await relationships(file, entries, '');
  const bookPath =
    [...root.values()].find((r) => r.type.endsWith('/officeDocument'))?.target ?? 'xl/workbook.xml';
  const book = await smallPart(file, entryOf(entries, bookPath));
  const rels = await relationships(file, entries, bookPath);
  const firstSheet = tagsNamed(book, 'sheet')[0];
  const sheetPath =
    (firstSheet !== undefined ? rels.get(attribute(firstSheet, 'id') ?? '')?.target : undefined) ??
    'xl/worksheets/sheet1.xml';
  const byType = (suffix: string) => {
    const target = [...rels.values()].find((r) => r.type.endsWith(suffix))?.target;
    return target === undefined ? undefined : entries.get(target);
  };
  const pr = tagsNamed(book, 'workbookPr')[0];
  const date1904 = pr !== undefined && ['1', 'true'].includes(attribute(pr, 'date1904') ?? '');
  return {
    sheet: entryOf(entries, sheetPath),
    sharedStrings: byType('/sharedStrings') ?? entries.get('xl/sharedStrings.xml'),
    styles: byType('/styles') ?? entries.get('xl/styles.xml'),
    date1904,
  };
}

/** Text chunks of an entry, inflated and decoded, with a turn for other requests now and then. */
async function* entryText(file: string, entry: ZipEntry, maxBytes: number, tooLarge: string) {
  const decoder = new TextDecoder('utf-8');
  const turn = turnTaker();
  try {
    for await (const chunk of zipEntryBytes(file, entry, maxBytes)) {
      yield decoder.decode(chunk, { stream: true });
      await turn();
    }
  } catch (e) {
    if (e instanceof ZipEntryTooLarge) throw badRequest(tooLarge);
    throw e;
  }
  yield decoder.decode();
}

/** The shared strings, each cut one character past the cell limit (the cell that uses it is refused). */
async function sharedStrings(file: string, entry: ZipEntry): Promise<string[]> {
  const strings: string[] = [];
  const cap = IMPORT_LIMITS.maxCellChars + 1;
  let raw: string | null = null;
  let inT = false;
  let phonetic = false;
  const scanner = new XmlScanner({
    open: (name, _attrs, selfClosing) => {
      if (name === 'si') raw = selfClosing ? null : '';
      if (name === 'si' && selfClosing) strings.push('');
      else if (name === 't' && !selfClosing) inT = raw !== null && !phonetic;
      else if (name === 'rPh' && !selfClosing) phonetic = true;
    },
    close: (name) => {
      if (name === 't') inT = false;
      else if (name === 'rPh') phonetic = false;
      else if (name === 'si' && raw !== null) {
        strings.push(decodeXmlText(raw).slice(0, cap));
        raw = null;
      }
    },
    text: (t) => {
      if (inT && raw !== null && raw.length <= cap * 8) raw += t;
    },
  });
  const tooLarge = IMPORT_MESSAGES.sheetTooLarge;
  for await (const text of entryText(file, entry, IMPORT_LIMITS.maxSharedStringsBytes, tooLarge))
    scanner.push(text);
  return strings;
}

/** Built-in number formats that show a date or a time (ECMA-376 18.8.30). */
const DATE_FORMAT_IDS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 30, 36, 45, 46, 47, 50, 57]);

/** The indexes of the cell styles (`s`) whose number format is a date or a time. */
async function dateStyles(file: string, entry: ZipEntry): Promise<Set<number>> {
  const xml = await smallPart(file, entry);
  const custom = new Map<number, string>();
  for (const attrs of tagsNamed(xml, 'numFmt'))
    custom.set(Number(attribute(attrs, 'numFmtId')), attribute(attrs, 'formatCode') ?? '');
  const isDate = (id: number) => {
    if (DATE_FORMAT_IDS.has(id)) return true;
    const code = custom.get(id);
    if (code === undefined) return false;
    // Quoted text, escapes and [colour]/[condition] parts say nothing of dates.
    const bare = code.replace(/"[^"]*"|\\.|\[[^\]]*\]/g, '');
    return /[dmyhs]/i.test(bare) && !/general/i.test(bare);
  };
  const dates = new Set<number>();
  let inXfs = false;
  let index = 0;
  new XmlScanner({
    open: (name, attrs, selfClosing) => {
      if (name === 'cellXfs' && !selfClosing) inXfs = true;
      else if (name === 'xf' && inXfs) {
        if (isDate(Number(attribute(attrs, 'numFmtId') ?? 0))) dates.add(index);
        index++;
      }
    },
    close: (name) => {
      if (name === 'cellXfs') inXfs = false;
    },
    text: () => {},
  }).push(xml);
  return dates;
}

/** Column index of a cell reference (`C7` → 2), -1 without one. */
function columnOf(ref: string | undefined): number {
  if (!ref) return -1;
  let col = 0;
  let i = 0;
  for (; i < ref.length; i++) {
    const c = ref.charCodeAt(i);
    if (c < 65 || c > 90) break;
    col = col * 26 + (c - 64);
  }
  return i === 0 ? -1 : col - 1;
}

async function* sheetRows(
  file: string,
  entry: ZipEntry,
  shared: string[],
  dates: Set<number>,
  date1904: boolean,
): AsyncGenerator<string[]> {
  const { maxColumns, maxCellChars } = IMPORT_LIMITS;
  const ready: string[][] = [];
  let row: string[] | null = null;
  let rowNumber = 0;
  let next = 0;
  let cell = { column: 0, type: '', style: -1 };
  let raw: string | null = null;
  let inInline = false;
  let inT = false;
  let inV = false;
  let phonetic = false;
  const finish = (): string => {
    const text = raw ?? '';
    switch (cell.type) {
      case 's':
        return shared[Number(text)] ?? '';
      case 'inlineStr':
      case 'str':
      case 'e':
      case 'd':
        return decodeXmlText(text);
      case 'b':
        return sheetCellText(text.trim() === '1');
      default: {
        if (text.trim() === '') return '';
        const value = Number(text);
        if (Number.isNaN(value)) return decodeXmlText(text);
        if (!dates.has(cell.style)) return sheetCellText(value);
        const days = value - (date1904 ? 24107 : 25569);
        const date = new Date(Math.round(days * 86_400_000));
        // A serial no calendar holds stays the number it is.
        return sheetCellText(Number.isNaN(date.getTime()) ? value : date);
      }
    }
  };
  const scanner = new XmlScanner({
    open: (name, attrs, selfClosing) => {
      switch (name) {
        case 'row': {
          rowNumber = Number(attribute(attrs, 'r')) || rowNumber + 1;
          next = 0;
          if (selfClosing) ready.push([]);
          else row = [];
          return;
        }
        case 'c': {
          const column = columnOf(attribute(attrs, 'r'));
          cell = {
            column: column === -1 ? next : column,
            type: attribute(attrs, 't') ?? 'n',
            style: Number(attribute(attrs, 's') ?? -1),
          };
          next = cell.column + 1;
          raw = null;
          inInline = false;
          return;
        }
        case 'v':
          inV = !selfClosing;
          raw = '';
          return;
        case 'is':
          inInline = !selfClosing;
          raw = '';
          return;
        case 't':
          inT = !selfClosing;
          return;
        case 'rPh':
          phonetic = !selfClosing;
          return;
      }
    },
    close: (name) => {
      if (name === 'rPh') phonetic = false;
      else if (name === 'v') inV = false;
      else if (name === 't') inT = false;
      else if (name === 'is') inInline = false;
      else if (name === 'c' && row) {
        const value = raw === null ? '' : finish();
        raw = null;
        if (value === '') return;
        if (cell.column >= maxColumns) throw new TableLimitError('columns', rowNumber);
        if (value.length > maxCellChars) throw new TableLimitError('cell', rowNumber);
        row[cell.column] = value;
      } else if (name === 'row' && row) {
        for (let i = 0; i < row.length; i++) row[i] ??= '';
        ready.push(row);
        row = null;
      }
    },
    text: (t) => {
      // Text counts only inside <v> or an inline string's <t> (not a formula's <f>, not phonetics).
      if (raw === null || !(inV || (inInline && inT && !phonetic))) return;
      raw += t;
      if (raw.length > maxCellChars * 8) throw new TableLimitError('cell', rowNumber);
    },
  });
  for await (const text of entryText(
    file,
    entry,
    IMPORT_LIMITS.maxSheetBytes,
    IMPORT_MESSAGES.sheetTooLarge,
  )) {
    scanner.push(text);
    if (ready.length > 0) yield* ready.splice(0);
  }
}
