import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { takeOptOutReply } from '../../src/messaging/opt-outs.ts';
import { xlsxOf } from '../fakes/xlsx.ts';
import { bearer, buildUser, DB_KINDS, loginToken, testAppFor } from '../helpers.ts';

function upload(file: Buffer | string, filename: string, fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([typeof file === 'string' ? file : new Uint8Array(file)]), filename);
  return form;
}

describe.each(DB_KINDS)('contact lists and opt-outs on %s', (kind) => {
  const t = testAppFor(kind);

  async function signedIn() {
    const user = await buildUser(t);
    return { user, token: await loginToken(t.app, user.username) };
  }
  const post = (token: string, form: FormData) =>
    t.app.inject({ method: 'POST', url: '/api/contact-lists/import', headers: bearer(token), payload: form });

  it('imports a phone-style Excel export: phone column by header, fields, skipped counts, contacts and export', async () => {
    const { token } = await signedIn();
    const xlsx = xlsxOf([
      ['Name', 'Phone 1 - Label', 'Phone 1 - Value', 'Area'],
      ['Asha Rao', 'Mobile', 919800015838, 'Pune'],
      ['Ravi Das', 'Mobile', '+91 98000 15839 ::: +91 98000 15840', 'Goa'],
      ['Asha again', 'Home', '098000 15838', 'Pune'],
      ['Nobody', 'Mobile', '12345', ''],
      ['Blank', 'Mobile', '', 'Delhi'],
    ]);
    const res = await post(token, upload(xlsx, 'contacts.xlsx', { name: 'Customers' }));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      success: true,
      imported: 2,
      skipped: { invalid: 1, duplicates: 1, empty: 1 },
      phoneColumn: 'Phone 1 - Value',
      list: { name: 'Customers', count: 2, optedOut: 0, fields: ['name', 'phone_1__label', 'area'] },
    });
    const lists = await t.app.inject({ method: 'GET', url: '/api/contact-lists', headers: bearer(token) });
    expect(lists.json().lists).toEqual([body.list]);

    const page = await t.app.inject({
      method: 'GET',
      url: `/api/contact-lists/${body.list.id}/contacts`,
      headers: bearer(token),
    });
    expect(page.json()).toEqual({
      success: true,
      total: 2,
      contacts: [
        {
          phoneNumber: '919800015838',
          name: 'Asha Rao',
          fields: { name: 'Asha Rao', phone_1__label: 'Mobile', area: 'Pune' },
          tags: [],
          optedOut: false,
        },
        {
          phoneNumber: '919800015839',
          name: 'Ravi Das',
          fields: { name: 'Ravi Das', phone_1__label: 'Mobile', area: 'Goa' },
          tags: [],
          optedOut: false,
        },
      ],
    });
    const searched = await t.app.inject({
      method: 'GET',
      url: `/api/contact-lists/${body.list.id}/contacts?search=ravi&limit=10`,
      headers: bearer(token),
    });
    expect(searched.json().contacts.map((c: { phoneNumber: string }) => c.phoneNumber)).toEqual([
      '919800015839',
    ]);

    const csv = await t.app.inject({
      method: 'GET',
      url: `/api/contact-lists/${body.list.id}/export.csv`,
      headers: bearer(token),
    });
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body).toBe(
      '\uFEFFphone_number,name,phone_1__label,area\r\n919800015838,Asha Rao,Mobile,Pune\r\n919800015839,Ravi Das,Mobile,Goa\r\n',
    );
  });

  it('reads a Labels or Tags column as tags: shown, searchable, exported, not a field', async () => {
    const { token } = await signedIn();
    const res = await post(
      token,
      upload(
        'Name,Phone,Labels,City\nAsha,9800015838,* myContacts ::: Wholesale ::: Pune,Pune\nRavi,9800015839,Retail; Wholesale,Goa\nMeera,9800015840,,Delhi\n',
        'google.csv',
        { name: 'Tagged' },
      ),
    );
    expect(res.statusCode, res.body).toBe(200);
    const { list } = res.json();
    expect(list.fields).toEqual(['name', 'city']);
    const contactsOf = async (search = '') =>
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/contact-lists/${list.id}/contacts?search=${encodeURIComponent(search)}`,
          headers: bearer(token),
        })
      ).json().contacts as { phoneNumber: string; tags: string[]; fields: Record<string, string> }[];
    const all = await contactsOf();
    expect(all.map((c) => [c.phoneNumber, c.tags, c.fields])).toEqual([
      ['919800015838', ['Wholesale', 'Pune'], { name: 'Asha', city: 'Pune' }],
      ['919800015839', ['Retail', 'Wholesale'], { name: 'Ravi', city: 'Goa' }],
      ['919800015840', [], { name: 'Meera', city: 'Delhi' }],
    ]);
    expect((await contactsOf('Wholesale')).map((c) => c.phoneNumber)).toEqual([
      '919800015838',
      '919800015839',
    ]);
    const csv = await t.app.inject({
      method: 'GET',
      url: `/api/contact-lists/${list.id}/export.csv`,
      headers: bearer(token),
    });
    expect(csv.body).toBe(
      '\uFEFFphone_number,name,city,tags\r\n919800015838,Asha,Pune,Wholesale ::: Pune\r\n919800015839,Ravi,Goa,Retail ::: Wholesale\r\n919800015840,Meera,Delhi,\r\n',
    );
  });

  it('stores every row of a file of several inserts as written: quotes, backslashes, braces, long and non-ASCII cells, tags', async () => {
    const { token } = await signedIn();
    const long = `${'é'.repeat(998)}🙂`;
    const rows: { phone: string; name: string; note: string; tags: string; stored?: string[] }[] = [
      {
        phone: '9800015838',
        name: 'Asha "A" Rao',
        note: 'C:\\new\\{x},[y]',
        tags: 'Say "hi"; back\\slash',
        stored: ['Say "hi"', 'back\\slash'],
      },
      { phone: '9800015839', name: 'आशा', note: '🙂 ok', tags: '' },
      { phone: '9800015840', name: 'NULL', note: '{}', tags: '{a} ::: NULL', stored: ['{a}', 'NULL'] },
    ];
    for (let i = 0; i < 6000; i++)
      rows.push({
        phone: String(9800100000 + i),
        name: `Person ${i}`,
        note: i % 500 === 0 ? long : '',
        tags: '',
      });
    // The same numbers again, in the first insert and in the last: the first row of each is kept.
    rows.push({ phone: '9800015838', name: 'Asha twice', note: '', tags: '' });
    rows.push({ phone: '9800105999', name: 'Last twice', note: '', tags: '' });
    const cell = (v: string) => `"${v.replaceAll('"', '""')}"`;
    const csv = `phone,name,note,tags\n${rows.map((r) => [r.phone, r.name, r.note, r.tags].map(cell).join(',')).join('\n')}\n`;
    const res = await post(token, upload(csv, 'many.csv', { name: 'Many' }));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ imported: 6003, skipped: { invalid: 0, duplicates: 2, empty: 0 } });
    const stored = await queryRows<{
      position: number;
      phone_number: string;
      fields: unknown;
      tags: string[];
    }>(
      t.db,
      sql`SELECT position, phone_number, fields, tags FROM contacts WHERE list_id = ${body.list.id} ORDER BY position`,
    );
    const expected = rows.slice(0, 6003).map((r, i) => ({
      position: i + 1,
      phone_number: `91${r.phone}`,
      fields: r.note === '' ? { name: r.name } : { name: r.name, note: r.note },
      tags: r.stored ?? [],
    }));
    expect(stored).toEqual(expected);

    // A file of one row without tags is one insert of one row.
    const one = await post(token, upload('phone\n9800015838\n', 'one.csv', { name: 'One' }));
    expect(one.statusCode, one.body).toBe(200);
    expect(
      await queryRows(
        t.db,
        sql`SELECT position, phone_number, fields, tags FROM contacts WHERE list_id = ${one.json().list.id}`,
      ),
    ).toEqual([{ position: 1, phone_number: '919800015838', fields: {}, tags: [] }]);
  });

  it('exports cells a spreadsheet would run as formulas as text', async () => {
    const { token } = await signedIn();
    const res = await post(
      token,
      upload('Name,Phone\n"=HYPERLINK(""http://x"")",9800015838\n@SUM(A1),9800015839\n', 'f.csv', {
        name: 'Formulas',
      }),
    );
    expect(res.statusCode).toBe(200);
    const csv = await t.app.inject({
      method: 'GET',
      url: `/api/contact-lists/${res.json().list.id}/export.csv`,
      headers: bearer(token),
    });
    expect(csv.body).toBe(
      '\uFEFFphone_number,name\r\n919800015838,"\'=HYPERLINK(""http://x"")"\r\n919800015839,"\'@SUM(A1)"\r\n',
    );
  });

  it('imports a semicolon CSV whose first row is data, with the phone column chosen', async () => {
    const { token } = await signedIn();
    const res = await post(
      token,
      upload('Asha;9800015838;9800015839\nRavi;9800015840;9800015841\n', 'c.csv', {
        name: 'Semi',
        phoneColumn: 'column_3',
      }),
    );
    expect(res.json()).toMatchObject({
      imported: 2,
      phoneColumn: 'column_3',
      list: { fields: ['column_1', 'column_2'] },
    });
  });

  it('refuses what is not a table and a 70,000-character name; the owner deletes a list', async () => {
    const { token } = await signedIn();
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 1, 2, 3]);
    for (const form of [
      upload(png, 'photo.csv', { name: 'x' }),
      upload('just,words\nno,numbers\n', 'w.csv', { name: 'x' }),
      upload(Buffer.from('PK\u0003\u0004broken zip'), 'b.xlsx', { name: 'x' }),
    ]) {
      const res = await post(token, form);
      expect(res.json()).toEqual({ success: false, message: 'Error processing the file' });
      expect(res.statusCode).toBe(400);
    }
    const long = await post(token, upload('phone\n9800015838\n', 'a.csv', { name: 'L'.repeat(70_000) }));
    expect(long.json()).toEqual({ success: false, message: 'List name must be at most 200 characters' });
    expect(long.statusCode).toBe(400);
    const lists = await t.app.inject({ method: 'GET', url: '/api/contact-lists', headers: bearer(token) });
    expect(lists.json().lists).toEqual([]);

    const made = (await post(token, upload('phone\n9800015838\n', 'a.csv', { name: 'Mine' }))).json();
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/contact-lists/${made.list.id}`,
      headers: bearer(token),
    });
    expect(del.json()).toEqual({ success: true, message: 'Contact list deleted' });
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/contact-lists', headers: bearer(token) })).json().lists,
    ).toEqual([]);
  });

  it('keeps an opt-out list per user, counted in the lists and marked on the contacts', async () => {
    const { token } = await signedIn();
    const made = (
      await post(token, upload('name,phone\nAsha,9800015838\nRavi,9800015839\n', 'a.csv', { name: 'L' }))
    ).json();
    const add = await t.app.inject({
      method: 'POST',
      url: '/api/opt-outs',
      headers: bearer(token),
      payload: { phoneNumbers: ['+91 98000 15838', '919800015838', '9800015899'] },
    });
    expect(add.json()).toEqual({ success: true, message: '2 numbers opted out' });
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/opt-outs',
      headers: bearer(token),
      payload: { phoneNumbers: ['12'] },
    });
    expect(bad.json()).toEqual({ success: false, message: 'Invalid phone number: 12' });
    const list = await t.app.inject({ method: 'GET', url: '/api/opt-outs', headers: bearer(token) });
    expect(
      list
        .json()
        .optOuts.map((o: { phoneNumber: string; source: string }) => [o.phoneNumber, o.source])
        .sort(),
    ).toEqual([
      ['919800015838', 'manual'],
      ['919800015899', 'manual'],
    ]);
    const lists = (
      await t.app.inject({ method: 'GET', url: '/api/contact-lists', headers: bearer(token) })
    ).json();
    expect(lists.lists[0]).toMatchObject({ id: made.list.id, count: 2, optedOut: 1 });
    const contacts = (
      await t.app.inject({
        method: 'GET',
        url: `/api/contact-lists/${made.list.id}/contacts`,
        headers: bearer(token),
      })
    ).json();
    expect(contacts.contacts.map((c: { optedOut: boolean }) => c.optedOut)).toEqual([true, false]);

    const other = await signedIn();
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/opt-outs', headers: bearer(other.token) })).json()
        .optOuts,
    ).toEqual([]);
    // Another user's list of the same numbers counts only that user's opt-outs (none), and marks none.
    const theirs = (
      await post(other.token, upload('phone\n9800015838\n9800015839\n', 'b.csv', { name: 'Theirs' }))
    ).json();
    expect(theirs.list).toMatchObject({ count: 2, optedOut: 0 });
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/contact-lists', headers: bearer(other.token) })).json()
        .lists,
    ).toEqual([expect.objectContaining({ id: theirs.list.id, count: 2, optedOut: 0 })]);

    const del = await t.app.inject({
      method: 'DELETE',
      url: '/api/opt-outs/919800015838',
      headers: bearer(token),
    });
    expect(del.json()).toEqual({ success: true, message: 'Opt-out removed' });
    const again = await t.app.inject({
      method: 'DELETE',
      url: '/api/opt-outs/919800015838',
      headers: bearer(token),
    });
    expect(again.statusCode).toBe(404);
  });
});

describe.each(DB_KINDS)('opt-out replies on %s', (kind) => {
  const t = testAppFor(kind, { OPT_OUT_KEYWORDS: 'stop, Unsubscribe ,STOP ALL,रोकें' });

  it('a reply equal to a keyword (trimmed, any case) opts the sender out with source reply', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    expect(t.ctx.config.optOutKeywords).toEqual(['STOP', 'UNSUBSCRIBE', 'STOP ALL', 'रोकें']);
    expect(
      await takeOptOutReply(t.ctx, user.id, { from: '919800015838@s.whatsapp.net', text: '  stop all ' }),
    ).toMatchObject({ added: true });
    expect(await takeOptOutReply(t.ctx, user.id, { from: '919800015839', text: 'रोकें' })).toMatchObject({
      added: true,
    });
    expect(await takeOptOutReply(t.ctx, user.id, { from: '919800015840', text: 'please stop' })).toBeNull();
    const list = (await t.app.inject({ method: 'GET', url: '/api/opt-outs', headers: bearer(token) })).json();
    expect(
      list.optOuts.map((o: { phoneNumber: string; source: string }) => [o.phoneNumber, o.source]).sort(),
    ).toEqual([
      ['919800015838', 'reply'],
      ['919800015839', 'reply'],
    ]);
  });
});
