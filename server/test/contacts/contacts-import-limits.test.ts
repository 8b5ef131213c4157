import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { deflateRawSync } from 'node:zlib';
import { sheetCellText } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { IMPORT_LIMITS } from '../../src/contacts/import-limits.ts';
import { rowsOfFile } from '../../src/contacts/table-rows.ts';
import { ZipEntryTooLarge, zipEntries, zipEntryBytes } from '../../src/contacts/zip-entries.ts';
import { contactLists } from '../../src/db/schema.ts';
import { newId } from '../../src/ids.ts';
import { xlsxOf, zipOf } from '../fakes/xlsx.ts';
import { bearer, buildUser, DB_KINDS, loginToken, testAppFor } from '../helpers.ts';
import { waitFor } from '../wait.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wa-import-limits-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const onDisk = (name: string, data: Buffer | string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, data);
  return file;
};
async function allRows(file: string): Promise<string[][]> {
  const rows: string[][] = [];
  for await (const row of rowsOfFile(file)) rows.push(row);
  return rows;
}

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
/** A workbook as Excel writes one: shared strings (rich text, phonetics), styles with dates, a second sheet first in the zip. */
function excelLikeWorkbook(): Buffer {
  return zipOf(
    {
      '_rels/.rels': `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
      'xl/workbook.xml': `<?xml version="1.0"?><x:workbook xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}"><x:workbookPr/><x:sheets><x:sheet name="Contacts" sheetId="1" r:id="rId7"/><x:sheet name="Other" sheetId="2" r:id="rId1"/></x:sheets></x:workbook>`,
      'xl/_rels/workbook.xml.rels': `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId7" Type="${REL}/worksheet" Target="/xl/worksheets/contacts.xml"/><Relationship Id="rId3" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/><Relationship Id="rId4" Type="${REL}/styles" Target="styles.xml"/></Relationships>`,
      'xl/sharedStrings.xml': `<sst ${NS} count="5" uniqueCount="5"><si><t>Name</t></si><si><t>Phone</t></si><si><t>Joined</t></si><si><r><rPr><b/></rPr><t>Asha </t></r><r><t xml:space="preserve">R&amp;D &lt;Rao&gt;</t></r><rPh sb="0" eb="1"><t>アシャ</t></rPh></si><si><t>Ravi &#x263A;</t></si></sst>`,
      'xl/styles.xml': `<styleSheet ${NS}><numFmts count="1"><numFmt numFmtId="164" formatCode="dd/mm/yyyy"/></numFmts><cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="164" applyNumberFormat="1"/><xf numFmtId="14"/></cellXfs></styleSheet>`,
      'xl/worksheets/sheet1.xml': `<worksheet ${NS}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>wrong sheet</t></is></c></row></sheetData></worksheet>`,
      'xl/worksheets/contacts.xml': `<worksheet ${NS}><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c><c r="D1" t="inlineStr"><is><t>VIP</t></is></c></row><row r="3"><c r="A3" t="s"><v>3</v></c><c r="B3"><v>919800015838</v></c><c r="C3" s="1"><v>45000</v></c><c r="D3" t="b"><v>1</v></c></row><row r="4"><c r="A4" t="s"><v>4</v></c><c r="B4" t="str"><f>"91"&amp;"9800015839"</f><v>919800015839</v></c><c r="D4" t="b"><v>0</v></c></row><row r="5"><c r="B5"><v>9800015840</v></c><c r="C5" s="2"><v>45001</v></c></row></sheetData></worksheet>`,
    },
    true,
  );
}

describe('reading an uploaded file', () => {
  it('reads an Excel workbook as read-excel-file read it: shared and rich text, dates, booleans, formulas, gaps', async () => {
    const data = excelLikeWorkbook();
    const ours = (await allRows(onDisk('book.xlsx', data))).filter((r) => r.some((c) => c !== ''));
    const { readSheet } = await import('read-excel-file/node');
    const theirs = (await readSheet(data)).map((r) => r.map(sheetCellText));
    const trim = (r: string[]) => r.slice(0, r.findLastIndex((c) => c !== '') + 1);
    expect(ours.map(trim)).toEqual(theirs.map(trim).filter((r) => r.length > 0));
    expect(ours).toEqual([
      ['Name', 'Phone', 'Joined', 'VIP'],
      ['Asha R&D <Rao>', '919800015838', '2023-03-15T00:00:00.000Z', 'true'],
      ['Ravi ☺', '919800015839', '', 'false'],
      ['', '9800015840', '2023-03-16T00:00:00.000Z'],
    ]);
  });

  it('refuses a row wider than 200 columns and a cell longer than 1,000 characters, naming the row', async () => {
    const wide = `phone,${'x,'.repeat(IMPORT_LIMITS.maxColumns - 1)}x\n`;
    await expect(allRows(onDisk('wide.csv', `phone,name\n9800015838,a\n${wide}`))).rejects.toThrow(
      'Row 3 has more than 200 columns',
    );
    const long = `9800015838,"${'y'.repeat(IMPORT_LIMITS.maxCellChars + 1)}"\n`;
    await expect(allRows(onDisk('long.csv', `phone,name\n${long}`))).rejects.toThrow(
      'Row 2 has a cell longer than 1,000 characters',
    );
    const sheet = (cells: string) =>
      zipOf({
        'xl/workbook.xml': `<workbook ${NS}><sheets/></workbook>`,
        'xl/worksheets/sheet1.xml': `<worksheet ${NS}><sheetData><row r="1"><c r="A1"><v>9800015838</v></c></row><row r="2">${cells}</row></sheetData></worksheet>`,
      });
    await expect(allRows(onDisk('wide.xlsx', sheet('<c r="GS2"><v>1</v></c>')))).rejects.toThrow(
      'Row 2 has more than 200 columns',
    );
    // An empty cell far out (a formatted column) is no column of data.
    expect(
      await allRows(onDisk('styled.xlsx', sheet('<c r="A2"><v>9800015839</v></c><c r="XFD2" s="1"/>'))),
    ).toEqual([['9800015838'], ['9800015839']]);
    const longCell = `<c r="B2" t="inlineStr"><is><t>${'z'.repeat(IMPORT_LIMITS.maxCellChars + 1)}</t></is></c>`;
    await expect(allRows(onDisk('long.xlsx', sheet(longCell)))).rejects.toThrow(
      'Row 2 has a cell longer than 1,000 characters',
    );
  });

  it('counts the bytes an entry inflates to, whatever size the zip declares', async () => {
    const zeros = Buffer.alloc(1024 * 1024);
    const file = onDisk('bomb.zip', zipOf({ 'a.xml': zeros }, true));
    expect(fs.statSync(file).size).toBeLessThan(4000);
    const entry = (await zipEntries(file)).get('a.xml')!;
    let read = 0;
    await expect(
      (async () => {
        for await (const chunk of zipEntryBytes(file, entry, 256 * 1024)) read += chunk.length;
      })(),
    ).rejects.toBeInstanceOf(ZipEntryTooLarge);
    expect(read).toBeLessThanOrEqual(256 * 1024);
    expect(deflateRawSync(zeros).length).toBeLessThan(4000);
  });
});

/** A multipart body whose file part arrives only when `finish` is called. */
function slowUpload(name: string) {
  const boundary = 'x-boundary-27';
  const body = new PassThrough();
  body.write(
    `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\n${name}\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\nphone\r\n9800015838\r\n`,
  );
  return {
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
    finish: () => body.end(`9800015839\r\n--${boundary}--\r\n`),
  };
}

function upload(file: Buffer | string, filename: string, name: string): FormData {
  const form = new FormData();
  form.append('name', name);
  form.append('file', new Blob([typeof file === 'string' ? file : new Uint8Array(file)]), filename);
  return form;
}

describe.each(DB_KINDS)('import limits through the API on %s', (kind) => {
  const t = testAppFor(kind);

  async function signedIn() {
    const user = await buildUser(t);
    return { user, token: await loginToken(t.app, user.username) };
  }
  const post = (token: string, payload: FormData | PassThrough, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/contact-lists/import',
      headers: { ...bearer(token), ...headers },
      payload,
    });
  const listsOf = async (token: string) =>
    (await t.app.inject({ method: 'GET', url: '/api/contact-lists', headers: bearer(token) })).json().lists;

  it('refuses a second import while the first runs (409), then takes the next', async () => {
    const { token } = await signedIn();
    const first = slowUpload('First');
    const running = post(token, first.body, first.headers);
    // Running: the route reads the file (its first part, written already) only once it took the import.
    await waitFor('the first import to read its file', async () => first.body.readableLength === 0);
    const second = await post(token, upload('phone\n9800015840\n', 'b.csv', 'Second'));
    expect(second.statusCode).toBe(409);
    expect(second.json()).toEqual({ success: false, message: 'An import is already running' });
    first.finish();
    const done = await running;
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ imported: 2, list: { name: 'First', count: 2 } });
    const third = await post(token, upload('phone\n9800015840\n', 'c.csv', 'Third'));
    expect(third.statusCode).toBe(200);
    expect((await listsOf(token)).map((l: { name: string }) => l.name).sort()).toEqual(['First', 'Third']);
  });

  it('refuses a wide file with a clear 400 and writes nothing', async () => {
    const { token } = await signedIn();
    const row = `9800015838,${Array.from({ length: 50_000 }, (_, i) => i % 11).join(',')}\n`;
    const res = await post(token, upload(row.repeat(3), 'wide.csv', 'Wide'));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, message: 'Row 1 has more than 200 columns' });
    const tooLong = await post(
      token,
      upload(
        xlsxOf([
          ['phone', 'note'],
          [9800015838, 'n'.repeat(1001)],
        ]),
        'l.xlsx',
        'L',
      ),
    );
    expect(tooLong.json()).toEqual({
      success: false,
      message: 'Row 2 has a cell longer than 1,000 characters',
    });
    expect(await listsOf(token)).toEqual([]);
  });

  it(`keeps at most ${IMPORT_LIMITS.maxListsPerUser} lists per user`, async () => {
    const { user, token } = await signedIn();
    await t.db.insert(contactLists).values(
      Array.from({ length: IMPORT_LIMITS.maxListsPerUser }, (_, i) => ({
        id: newId(),
        userId: user.id,
        name: `List ${i}`,
        fields: [],
      })),
    );
    const res = await post(token, upload('phone\n9800015838\n', 'a.csv', 'One more'));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      success: false,
      message: 'You have 100 contact lists: delete one to add another',
    });
    expect(await listsOf(token)).toHaveLength(IMPORT_LIMITS.maxListsPerUser);
  });

  it.runIf(kind === 'postgres')(
    'refuses an import while another node imports for the same user (409)',
    async () => {
      const { user, token } = await signedIn();
      let release = () => {};
      const held = new Promise<void>((r) => {
        release = r;
      });
      let locked = () => {};
      const isLocked = new Promise<void>((r) => {
        locked = r;
      });
      const other = t.db.transaction(async (tx) => {
        await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`contact-lists:${user.id}`}))`);
        locked();
        await held;
      });
      await isLocked;
      const res = await post(token, upload('phone\n9800015838\n', 'a.csv', 'Blocked'));
      release();
      await other;
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ success: false, message: 'An import is already running' });
      expect(await listsOf(token)).toEqual([]);
    },
  );
});
