import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { matchOptOut, normaliseReply } from '../../src/contacts/opt-out-words.ts';
import { queryRows } from '../../src/db/client.ts';
import { takeOptOutReply } from '../../src/messaging/opt-outs.ts';
import { balanceOf, recipientsOf } from '../fakes/messaging.ts';
import {
  appWithEngine,
  bearer,
  buildAdmin,
  buildUser,
  DB_KINDS,
  linkedAccount,
  loginToken,
  testAppFor,
} from '../helpers.ts';
import { waitFor } from '../wait.ts';

const KEYWORDS = ['STOP', 'UNSUBSCRIBE', 'STOP ALL'];

describe('opt-out words in Indian languages', () => {
  it.each([
    ['बंद करो', 'hi'],
    ['बंद करो।', 'hi'],
    ['  Band   Karo! ', 'hi'],
    ['रोको 🙏', 'hi'],
    ['অন্য', null],
    ['বন্ধ করুন', 'bn'],
    ['मेसेज पाठवू नका', 'mr'],
    ['అన్‌సబ్‌స్క్రైబ్', 'te'],
    // The same word typed without its zero-width non-joiner.
    ['అన్సబ్స్క్రైబ్', 'te'],
    ['நிறுத்துங்கள்', 'ta'],
    ['મેસેજ ન મોકલો', 'gu'],
    ['ನಿಲ್ಲಿಸಿ', 'kn'],
    // Malayalam with the legacy chillu (ർ written as ര + virama + ZWJ).
    ['നിര്‍ത്തൂ', 'ml'],
    ['ਨਾ ਭੇਜੋ', 'pa'],
    ['ପଠାନ୍ତୁ ନାହିଁ', 'or'],
    // Urdu typed with the Arabic yeh and kaf.
    ['بند كريں', 'ur'],
    ['STOP!', 'en'],
    ['stop all', 'en'],
  ])('%s → %s', (text, language) => {
    expect(matchOptOut(text, KEYWORDS)?.language ?? null).toBe(language);
  });

  it.each([
    'नहीं',
    'nahi',
    'band',
    'बंद',
    'ruko',
    'bas',
    'ok',
    'please stop sending offers',
    `${'stop '.repeat(13)}`,
  ])('an ordinary reply %s is not an opt-out', (text) => {
    expect(matchOptOut(text, KEYWORDS)).toBeNull();
  });

  it('normalising is idempotent', () => {
    for (const s of ['നിര്‍ത്തൂ', 'بند كريں', ' STOP! ', 'అన్‌సబ్‌స్క్రైబ్'])
      expect(normaliseReply(normaliseReply(s))).toBe(normaliseReply(s));
  });
});

function upload(file: string, filename: string, fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([file]), filename);
  return form;
}

describe.each(DB_KINDS)('consent and withdrawal on %s', (kind) => {
  const users = new Set<string>();
  const outbox = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'consent-')), 'outbox.jsonl');
  const { t } = appWithEngine(kind, { SECRET_KEY: 'ab'.repeat(32), SIMULATOR_OUTBOX_FILE: outbox }, users);

  const importList = (token: string, file: string, fields: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url: '/api/contact-lists/import',
      headers: bearer(token),
      payload: upload(file, 'customers.csv', { name: 'Customers', ...fields }),
    });
  const send = (token: string, accountId: string, chatIds: string[]) =>
    t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(token),
      payload: { chatIds, content: 'Offer', scheduleTime: new Date(Date.now() + 3_600_000).toISOString() },
    });

  it('an import confirmed with a purpose records it on every contact, with the file, the user and the time; the audit log has it', async () => {
    const { user, token } = await linkedAccount(t, { credits: 0, track: users });
    const before = Date.now();
    const res = await importList(token, 'phone,name\n9800015838,Asha\n9800015839,Ravi\n', {
      consentConfirmed: 'true',
      consentPurpose: 'Order updates',
    });
    expect(res.statusCode, res.body).toBe(200);
    const { list } = res.json();
    expect(list.consent).toMatchObject({
      source: 'import',
      purpose: 'Order updates',
      fileName: 'customers.csv',
      by: user.username,
    });
    expect(Date.parse(list.consent.at)).toBeGreaterThanOrEqual(before - 1000);
    const rows = await queryRows<{ n: number; g: string | null }>(
      t.db,
      sql`SELECT count(*)::int AS n, min(consent_grant_id) AS g FROM contacts WHERE list_id = ${list.id} AND consent_grant_id IS NOT NULL`,
    );
    expect(rows[0]).toEqual({ n: 2, g: list.consent.grantId });
    const [grant] = await queryRows<{ numbers: number; actor: string }>(
      t.db,
      sql`SELECT numbers, actor FROM consent_grants WHERE id = ${list.consent.grantId}`,
    );
    expect(grant).toEqual({ numbers: 2, actor: user.username });
    const audit = await queryRows<{ details: Record<string, unknown> }>(
      t.db,
      sql`SELECT details FROM audit_log WHERE action = 'consent.grant' AND target_user_id = ${user.id}`,
    );
    expect(audit.map((a) => a.details)).toEqual([
      expect.objectContaining({ purpose: 'Order updates', fileName: 'customers.csv', numbers: 2 }),
    ]);
  });

  it('a confirmation without a purpose is refused and stores nothing; no confirmation imports without consent', async () => {
    const { user, token } = await linkedAccount(t, { credits: 0, track: users });
    const refused = await importList(token, 'phone\n9800015838\n', {
      consentConfirmed: 'true',
      consentPurpose: ' ',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe('Say what the people agreed to receive (the purpose)');
    const lists = await queryRows<{ n: number }>(
      t.db,
      sql`SELECT count(*)::int AS n FROM contact_lists WHERE user_id = ${user.id}`,
    );
    expect(lists[0]!.n).toBe(0);
    const plain = await importList(token, 'phone\n9800015838\n', {});
    expect(plain.statusCode, plain.body).toBe(200);
    expect(plain.json().list.consent).toBeNull();
  });

  it("with 'Send one-to-one only to contacts with consent' a send leaves out numbers without it, not charged, shown beside opt-outs", async () => {
    const { user, token, accountId } = await linkedAccount(t, { credits: 10, track: users });
    const admin = await buildAdmin(t);
    await t.db.execute(sql`UPDATE users SET managed_by = ${admin.id} WHERE id = ${user.id}`);
    const adminToken = await loginToken(t.app, admin.username);
    const set = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/users/${user.id}`,
      headers: bearer(adminToken),
      payload: { consent_required: true },
    });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().user.consent_required).toBe(true);
    await importList(token, 'phone\n9800016001\n9800016002\n', {
      consentConfirmed: 'true',
      consentPurpose: 'Offers',
    });
    await importList(token, 'phone\n9800016003\n', {});
    await t.app.inject({
      method: 'POST',
      url: '/api/opt-outs',
      headers: bearer(token),
      payload: { phoneNumbers: ['9800016004'] },
    });
    const res = await send(token, accountId, [
      '919800016001',
      '919800016002',
      '919800016003',
      '919800016004',
      '919800016005',
    ]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      totalChats: 2,
      skipped: { optedOut: ['919800016004'], noConsent: ['919800016003', '919800016005'] },
    });
    expect(await balanceOf(t.db, user.id)).toBe(8);
    const none = await send(token, accountId, ['919800016003']);
    expect(none.statusCode).toBe(400);
    expect(none.json().message).toBe('No recipient has consent to receive messages');
    // One opted out and one without consent, none left: the consent is what the user can fix.
    const mixed = await send(token, accountId, ['919800016003', '919800016004']);
    expect([mixed.statusCode, mixed.json().message]).toEqual([
      400,
      'No recipient has consent to receive messages',
    ]);
    expect(await balanceOf(t.db, user.id)).toBe(8);
    const audit = await queryRows<{ details: Record<string, unknown> }>(
      t.db,
      sql`SELECT details FROM audit_log WHERE action = 'user.update' AND target_user_id = ${user.id}`,
    );
    expect(audit.map((a) => a.details)).toEqual([expect.objectContaining({ consent_required: true })]);
  });

  it("a reply 'बंद करो' opts out with the word, language and message; with the confirmation on, one Hindi answer, none for a repeat", async () => {
    const { user, token, accountId } = await linkedAccount(t, { credits: 10, track: users });
    await t.db.execute(sql`UPDATE users SET opt_out_confirm = true WHERE id = ${user.id}`);
    const jobId = (await send(token, accountId, ['919800017001'])).json().jobId as string;
    const inbound = (text: string, from = '919800017001') =>
      t.app.inject({
        method: 'POST',
        url: `/api/simulator/sessions/${accountId}/inbound`,
        headers: bearer(token),
        payload: { from, text },
      });
    expect((await inbound('बंद करो।')).statusCode).toBe(200);
    const answers = () =>
      fs.existsSync(outbox)
        ? fs
            .readFileSync(outbox, 'utf8')
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as { sessionId: string; chatId: string; text: string | null })
            .filter((m) => m.sessionId === accountId)
        : [];
    await waitFor('the opt-out answer', async () => answers().length === 1);
    expect(answers()[0]).toMatchObject({
      chatId: expect.stringMatching(/^919800017001@/),
      text: 'आपको अब हमारे संदेश नहीं मिलेंगे।',
    });
    const list = (await t.app.inject({ method: 'GET', url: '/api/opt-outs', headers: bearer(token) })).json();
    expect(list.optOuts).toEqual([
      expect.objectContaining({
        phoneNumber: '919800017001',
        source: 'reply',
        keyword: 'बंद करो',
        language: 'hi',
        message: 'बंद करो।',
      }),
    ]);
    expect((await recipientsOf(t.db, jobId)).map((r) => [r.status, r.error])).toEqual([
      ['failed', 'Opted out'],
    ]);
    expect(await balanceOf(t.db, user.id)).toBe(10);
    // A second STOP: still opted out, nothing more said.
    expect(await takeOptOutReply(t.ctx, user.id, { from: '919800017001', text: 'STOP' }, accountId)).toEqual({
      added: false,
      confirmation: null,
    });
    // And through the account: a repeat says nothing; another number's STOP after it is answered,
    // so by then the repeat was taken.
    expect((await inbound('STOP')).statusCode).toBe(200);
    expect((await inbound('STOP', '919800017002')).statusCode).toBe(200);
    await waitFor('the other number’s answer', async () => answers().length === 2);
    expect(answers().map((a) => a.chatId.split('@')[0])).toEqual(['919800017001', '919800017002']);
  });

  it('a data request gives lists, consent, opt-out, messages and replies as JSON and CSV; erasure keeps totals and leaves the number out', async () => {
    const { user, token, accountId } = await linkedAccount(t, { credits: 10, track: users });
    await importList(token, 'phone,name\n9800018001,=cmd()\n9800018002,Ravi\n', {
      consentConfirmed: 'true',
      consentPurpose: 'Order updates',
    });
    const jobId = (await send(token, accountId, ['919800018001', '919800018002'])).json().jobId as string;
    // The person's reply, where Job Details reads it.
    const repliedAt = new Date('2026-01-05T10:00:00Z');
    await t.db.execute(
      sql`UPDATE message_job_recipients SET reply_text = 'Send the catalogue', replied_at = ${repliedAt.toISOString()}::timestamptz
          WHERE job_id = ${jobId} AND chat_id = '919800018001@s.whatsapp.net'`,
    );
    const got = await t.app.inject({
      method: 'GET',
      url: '/api/contacts/by-phone/9800018001',
      headers: bearer(token),
    });
    expect(got.statusCode, got.body).toBe(200);
    const data = got.json();
    expect(data).toMatchObject({
      phone: '919800018001',
      erased: false,
      optOut: null,
      lists: [
        {
          name: 'Customers',
          fields: { name: '=cmd()' },
          consent: { purpose: 'Order updates', fileName: 'customers.csv' },
        },
      ],
      messages: [
        {
          jobId,
          status: 'queued',
          content: 'Offer',
          reply: { text: 'Send the catalogue', at: repliedAt.toISOString() },
        },
      ],
    });
    const csv = await t.app.inject({
      method: 'GET',
      url: '/api/contacts/by-phone/919800018001?format=csv',
      headers: bearer(token),
    });
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body).toContain('name==cmd()');
    expect(csv.body).toContain(`reply,${jobId},,Send the catalogue,replied,${repliedAt.toISOString()}`);
    // No cell begins like a formula (docs/decisions.md, Exports).
    expect(csv.body).not.toMatch(/(^|,)[=+\-@]/m);
    expect(csv.body.split('\r\n')[0]).toBe('\uFEFFrecord,id,name,detail,status,at');

    const totals = async () =>
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/message-jobs-details/${jobId}`,
          headers: bearer(token),
        })
      ).json().job.progress.total as number;
    const totalBefore = await totals();
    expect(totalBefore).toBe(2);
    const erased = await t.app.inject({
      method: 'DELETE',
      url: '/api/contacts/by-phone/+91 98000 18001',
      headers: bearer(token),
    });
    expect(erased.statusCode, erased.body).toBe(200);
    const { token: erasureToken } = erased.json();
    expect(erased.json()).toMatchObject({ erased: true, lists: 1, messages: 1 });
    expect(erasureToken).toMatch(/^erased-[0-9a-f]{32}$/);
    // The queued message failed 'Erased' and was refunded; the job still counts two recipients.
    const rows = await recipientsOf(t.db, jobId);
    expect(rows.map((r) => [r.chatId, r.status, r.error]).sort()).toEqual([
      ['919800018002@s.whatsapp.net', 'queued', null],
      [`${erasureToken}@erased`, 'failed', 'Erased'],
    ]);
    expect(await balanceOf(t.db, user.id)).toBe(9);
    expect(await totals()).toBe(totalBefore);
    const held = await queryRows<{ n: number }>(
      t.db,
      sql`SELECT (SELECT count(*) FROM contacts WHERE phone_number = '919800018001')
               + (SELECT count(*) FROM message_job_recipients WHERE chat_id LIKE '%9800018001%')
               + (SELECT count(*) FROM audit_log WHERE details::text LIKE '%9800018001%') AS n`,
    );
    expect(Number(held[0]!.n)).toBe(0);
    // A new send leaves the erased number out, as an opt-out, without holding the number.
    const again = await send(token, accountId, ['919800018001', '919800018002']);
    expect(again.json()).toMatchObject({ totalChats: 1, skipped: { optedOut: ['919800018001'] } });
    const after = (
      await t.app.inject({
        method: 'GET',
        url: '/api/contacts/by-phone/919800018001',
        headers: bearer(token),
      })
    ).json();
    expect(after).toMatchObject({ erased: true, lists: [], messages: [] });
    const audit = await queryRows<{ action: string }>(
      t.db,
      sql`SELECT action FROM audit_log WHERE target_user_id = ${user.id} AND action LIKE 'contact.%' ORDER BY id`,
    );
    expect(audit.map((a) => a.action)).toEqual([
      'contact.export',
      'contact.export',
      'contact.erase',
      'contact.export',
    ]);
  });
});

describe.each(DB_KINDS)('erasure without a secret key on %s', (kind) => {
  const t = testAppFor(kind);

  it('is refused with the reason, and nothing changes', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    await t.app.inject({
      method: 'POST',
      url: '/api/opt-outs',
      headers: bearer(token),
      payload: { phoneNumbers: ['9800019001'] },
    });
    const res = await t.app.inject({
      method: 'DELETE',
      url: '/api/contacts/by-phone/9800019001',
      headers: bearer(token),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Erasure needs SECRET_KEY');
    const list = (await t.app.inject({ method: 'GET', url: '/api/opt-outs', headers: bearer(token) })).json();
    expect(list.optOuts).toHaveLength(1);
  });
});
