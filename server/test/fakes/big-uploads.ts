import { seeded } from '../reliability/support/server-process.ts';
import { xlsxOfSheetXml } from './xlsx.ts';

/** Uploads made to exhaust an importer: a sheet that inflates 20:1, a very wide CSV. */

const CITIES = ['Pune', 'Goa', 'Delhi', 'Mumbai', 'Chennai', 'Kolkata', 'Jaipur', 'Surat'];

/**
 * An .xlsx of a header and `rows - 1` contacts (name, phone as a number, city), deflated: a
 * contacts export of that size zips about 20:1, as this does (1,000,000 rows: 8.7 MB, its
 * sheet 178 MB).
 */
export function contactsXlsx(rows: number, seed: number): Buffer {
  const rand = seeded(seed);
  const parts: Buffer[] = [
    Buffer.from(
      '<row r="1"><c r="A1" t="inlineStr"><is><t>Name</t></is></c><c r="B1" t="inlineStr"><is><t>Phone</t></is></c><c r="C1" t="inlineStr"><is><t>City</t></is></c></row>',
    ),
  ];
  let chunk = '';
  for (let r = 2; r <= rows; r++) {
    const phone = 919_800_000_000 + r * 3 + (rand() < 0.05 ? 1 : 0);
    const city = CITIES[(r >> 3) % CITIES.length];
    chunk += `<row r="${r}" spans="1:3"><c r="A${r}" t="inlineStr"><is><t>Customer ${r}</t></is></c><c r="B${r}"><v>${phone}</v></c><c r="C${r}" t="inlineStr"><is><t>${city}</t></is></c></row>`;
    if (chunk.length > 1 << 20) {
      parts.push(Buffer.from(chunk));
      chunk = '';
    }
  }
  parts.push(Buffer.from(chunk));
  return xlsxOfSheetXml(Buffer.concat(parts), true);
}

/** A CSV of `lines` rows, each a phone number and then `columns - 1` small numbers. */
export function wideCsv(columns: number, lines: number): Buffer {
  const tail = Array.from({ length: columns - 1 }, (_, i) => String(i % 11)).join(',');
  return Buffer.from(
    Array.from({ length: lines }, (_, i) => `${9_800_000_000 + i},${tail}\n`).join(''),
    'utf8',
  );
}
