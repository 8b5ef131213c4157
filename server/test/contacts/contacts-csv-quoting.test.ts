import { csvField, toCsv } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { accountOwner } from '../fakes/messaging.ts';
import { bearer, buildUser, DB_KINDS, loginToken, testAppFor } from '../helpers.ts';

/**
 * Every CSV export (contacts, mis_report.csv, the web app's tables, which all
 * write through contract/src/csv.ts) quotes a cell holding `;` or a tab, and every cell it
 * defused as a formula: Excel set to the `;` list separator would otherwise split `a;=1+1` and
 * run `=1+1`.
 */
describe('the one CSV writer', () => {
  it('quotes semicolons, tabs and every defused cell', () => {
    expect(csvField('a;=1+1')).toBe('"a;=1+1"');
    expect(csvField('a\tb')).toBe('"a\tb"');
    expect(csvField('=1+1')).toBe(`"'=1+1"`);
    expect(csvField('\tx')).toBe(`"'\tx"`);
    expect(csvField('-')).toBe(`"'-"`);
    expect(csvField('plain text')).toBe('plain text');
    expect(csvField(-5)).toBe('-5');
    // The web app's table exports (web/src/lib/export.ts) are this function.
    expect(toCsv(['Group Name'], [['a;=1+1'], ['x\ty'], ['@cmd']])).toBe(
      `\uFEFFGroup Name\r\n"a;=1+1"\r\n"x\ty"\r\n"'@cmd"\r\n`,
    );
  });
});

describe.each(DB_KINDS)('CSV exports quote `;`, tabs and defused cells on %s', (kind) => {
  const t = testAppFor(kind);

  it('in a contact list export', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const form = new FormData();
    form.append('name', 'Tricky');
    form.append(
      'file',
      new Blob(['phone,name,note\n9800015838,a;=1+1,"tab\there"\n9800015839,=1+1,\n']),
      'tricky.csv',
    );
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/contact-lists/import',
      headers: bearer(token),
      payload: form,
    });
    expect(res.statusCode, res.body).toBe(200);
    const csv = await t.app.inject({
      method: 'GET',
      url: `/api/contact-lists/${res.json().list.id}/export.csv`,
      headers: bearer(token),
    });
    expect(csv.body).toBe(
      `\uFEFFphone_number,name,note\r\n919800015838,"a;=1+1","tab\there"\r\n919800015839,"'=1+1",\r\n`,
    );
  });

  it('in mis_report.csv', async () => {
    const { user, token, accountId } = await accountOwner(t, { credits: 0 });
    await t.db.execute(
      sql`INSERT INTO message_jobs (id, user_id, session_id, audience, message_type, content, status, total, created_at)
          VALUES ('job-semi', ${user.id}, ${accountId}, 'individuals', 'text', 'a;=1+1', 'completed', 1, now()),
                 ('job-tab', ${user.id}, ${accountId}, 'individuals', 'text', E'tab\\there', 'completed', 1, now() - interval '1 minute'),
                 ('job-formula', ${user.id}, ${accountId}, 'individuals', 'text', '=1+1', 'completed', 1, now() - interval '2 minutes')`,
    );
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/message-jobs/${user.id}/export.csv?tz=UTC`,
      headers: bearer(token),
    });
    expect(res.statusCode).toBe(200);
    const lines = res.body.split('\r\n');
    const contentOf = (id: string) => {
      const line = lines.find((l) => l.startsWith(`${id},`)) ?? '';
      return line.slice(line.lastIndexOf(',text,') + ',text,'.length);
    };
    // The content twice: the spec's Content column (the table's preview) and the full Content
    // column the export adds after Status, Delivered, Read, Replied and Undelivered (26).
    // Then the Cloud API columns, empty for a text job.
    const twice = (cell: string) => `${cell},completed,0,0,0,0,${cell},,`;
    expect(contentOf('job-semi')).toBe(twice('"a;=1+1"'));
    expect(contentOf('job-tab')).toBe(twice('"tab\there"'));
    expect(contentOf('job-formula')).toBe(twice(`"'=1+1"`));
  });
});
