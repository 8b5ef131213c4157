import { parseTemplate, renderTemplate, unknownFieldMessage } from '@wa/contract';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { waGroups } from '../../src/db/schema.ts';
import { takeOptOutReply } from '../../src/messaging/opt-outs.ts';
import { balanceOf, jobRow, recipientsOf, waitForJobEnd } from '../fakes/messaging.ts';
import { appWithEngine, bearer, DB_KINDS, linkedAccount } from '../helpers.ts';
import { waitFor } from '../wait.ts';

describe('personalised text (docs/decisions.md, Personalised text)', () => {
  const render = (text: string, fields: Record<string, string>, pick = () => 0) =>
    renderTemplate(parseTemplate(text), fields, pick);

  it('inserts fields, falls back when empty, picks one spintax variant', () => {
    expect(render('Hi {{name}}, from {{Area}}', { name: 'Asha', area: 'Pune' })).toBe('Hi Asha, from Pune');
    expect(render('Hi {{name|friend}}!', { name: '  ' })).toBe('Hi friend!');
    expect(render('Hi {{name|friend}}!', {})).toBe('Hi friend!');
    expect(render('{Hi|Hello|Namaste} {{name}}', { name: 'Ravi' }, () => 2)).toBe('Namaste Ravi');
  });

  it('keeps every other brace as text, and \\{ writes a literal brace', () => {
    expect(render('{not spintax} {} {a|{b}} \\{{name}} {{bad name}}', { name: 'X' })).toBe(
      '{not spintax} {} {a|{b}} {{name}} {{bad name}}',
    );
    expect(render('JSON: \\{"a": 1\\}', {})).toBe('JSON: {"a": 1}');
  });

  it('names the first unknown field and the available ones', () => {
    expect(unknownFieldMessage(parseTemplate('Hi {{name}} in {{city}}'), ['name', 'area'])).toBe(
      'Unknown field {{city}} (available: name, area)',
    );
    expect(unknownFieldMessage(parseTemplate('Hi {{name}}'), [])).toBe(
      'Unknown field {{name}} (available: none)',
    );
    expect(unknownFieldMessage(parseTemplate('Hi {{name}}'), ['name'])).toBeNull();
  });

  it('derives {{first_name}} from name, a field of its own winning, the fallback when blank', () => {
    const parts = parseTemplate('Hello {{first_name|friend}}');
    const pick = () => 0;
    expect(renderTemplate(parts, { name: 'Kumar, Arjun' }, pick)).toBe('Hello Arjun');
    expect(renderTemplate(parts, { name: '  Priya Sharma ' }, pick)).toBe('Hello Priya');
    expect(renderTemplate(parts, { name: '' }, pick)).toBe('Hello friend');
    expect(renderTemplate(parts, { name: 'Priya Sharma', first_name: 'Pri' }, pick)).toBe('Hello Pri');
    expect(unknownFieldMessage(parts, ['name'])).toBeNull();
    expect(unknownFieldMessage(parts, ['city'])).toBe('Unknown field {{first_name}} (available: city)');
  });
});

function upload(csv: string, name: string): FormData {
  const form = new FormData();
  form.append('name', name);
  form.append('file', new Blob([csv]), 'list.csv');
  return form;
}

/** Contact lists, personalised sends and opt-outs through the API, the engine and the simulator. */
describe.each(DB_KINDS)('personalised sends and opt-outs on %s', (kind) => {
  const users = new Set<string>();
  const _phone = 919_500_000_001;
  const { t } = appWithEngine(kind, { SIMULATOR_SEND_LATENCY_MS: '5', SIMULATOR_GROUPS: '3' }, users);

  const account = (credits: number) => linkedAccount(t, { credits, track: users });
  const post = (token: string, url: string, payload: object) =>
    t.app.inject({ method: 'POST', url, headers: bearer(token), payload });
  const importList = async (token: string, csv: string, name = 'Customers') => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/contact-lists/import',
      headers: bearer(token),
      payload: upload(csv, name),
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().list.id as string;
  };
  const outbox = async (token: string, accountId: string) =>
    (
      await t.app.inject({
        method: 'GET',
        url: `/api/simulator/sessions/${accountId}/outbox?limit=5000`,
        headers: bearer(token),
      })
    ).json().messages as Array<{ chatId: string; text: string | null }>;

  it('sends each contact of a list, each number with fields and each bare number its own text, one credit each', async () => {
    const { user, token, accountId } = await account(10);
    const listId = await importList(token, 'Name,Mobile,Area\nAsha Rao,9800015838,Pune\nRavi,9800015839,\n');
    const res = await post(token, `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: ['919800015840'],
      recipients: [{ chatId: '919800015841', fields: { Name: 'Meena', AREA: 'Goa' } }],
      contactListIds: [listId],
      content: 'Hi {{name|friend}} from {{area|India}}',
    });
    expect(res.statusCode, res.body).toBe(200);
    const { jobId, totalChats } = res.json();
    expect(totalChats).toBe(4);
    expect(await balanceOf(t.db, user.id)).toBe(6);
    await waitForJobEnd(t.app, token, jobId);
    const sent = Object.fromEntries(
      (await outbox(token, accountId)).map((m) => [m.chatId.split('@')[0], m.text]),
    );
    expect(sent).toEqual({
      '919800015838': 'Hi Asha Rao from Pune',
      '919800015839': 'Hi Ravi from India',
      '919800015840': 'Hi friend from India',
      '919800015841': 'Hi Meena from Goa',
    });
    // Job Details shows what each recipient got; the job keeps the text as written.
    const details = (
      await t.app.inject({ method: 'GET', url: `/api/message-jobs-details/${jobId}`, headers: bearer(token) })
    ).json().job;
    expect(details.messageContent).toBe('Hi {{name|friend}} from {{area|India}}');
    expect(
      Object.fromEntries(
        details.details.map((d: { chatName: string; content: string }) => [d.chatName, d.content]),
      ),
    ).toMatchObject({ '919800015838': 'Hi Asha Rao from Pune', '919800015841': 'Hi Meena from Goa' });
    expect(await balanceOf(t.db, user.id)).toBe(6);
  });

  it('refuses an unknown field and a list that is not the sender’s, charging nothing', async () => {
    const { user, token, accountId } = await account(10);
    const listId = await importList(token, 'Name,Phone,Area\nAsha,9800015838,Pune\n');
    const unknown = await post(token, `/api/session/${accountId}/sendIndividualMessage`, {
      contactListIds: [listId],
      content: 'Hi {{name}} in {{city}}',
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().message).toBe('Unknown field {{city}} (available: name, area)');
    const other = await account(10);
    const foreign = await post(other.token, `/api/session/${other.accountId}/sendIndividualMessage`, {
      contactListIds: [listId],
      content: 'Hello',
    });
    expect(foreign.statusCode).toBe(404);
    expect(await balanceOf(t.db, user.id)).toBe(10);
    expect(await balanceOf(t.db, other.user.id)).toBe(10);
  });

  it('gives each group its name with {{group}}, and spintax one variant per recipient', async () => {
    const { token, accountId } = await account(10);
    const groups = await waitFor('groups cached', async () => {
      const rows = await t.db.select().from(waGroups).where(eq(waGroups.accountId, accountId));
      return rows.length === 3 ? rows.filter((g) => !g.announce || g.isAdmin) : null;
    });
    const res = await post(token, `/api/session/${accountId}/sendBulkMessage`, {
      chatIds: groups.map((g) => g.groupId),
      type: 'string',
      content: '{Hi|Hello} {{group}}',
    });
    expect(res.statusCode, res.body).toBe(200);
    await waitForJobEnd(t.app, token, res.json().jobId);
    const sent = await outbox(token, accountId);
    for (const g of groups) {
      const text = sent.find((m) => m.chatId === g.groupId)?.text;
      expect([`Hi ${g.subject}`, `Hello ${g.subject}`]).toContain(text);
    }
    const bad = await post(token, `/api/session/${accountId}/sendBulkMessage`, {
      chatIds: [groups[0]!.groupId],
      type: 'string',
      content: 'Hi {{name}}',
    });
    expect(bad.json().message).toBe('Unknown field {{name}} (available: group)');
  });

  it('leaves opted-out numbers out before charging, and says which', async () => {
    const { user, token, accountId } = await account(10);
    const added = await post(token, '/api/opt-outs', { phoneNumbers: ['098000 15838'] });
    expect(added.statusCode, added.body).toBe(200);
    const res = await post(token, `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: ['919800015838', '919800015839'],
      content: 'Offer',
    });
    expect(res.json()).toMatchObject({ totalChats: 1, skipped: { optedOut: ['919800015838'] } });
    expect(await balanceOf(t.db, user.id)).toBe(9);
    const all = await post(token, `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: ['919800015838'],
      content: 'Offer',
    });
    expect(all.statusCode).toBe(400);
    expect(all.json().message).toBe('Every recipient has opted out');
    expect(await balanceOf(t.db, user.id)).toBe(9);
    // A list of opt-outs longer than the send: the numbers are looked up in it.
    await post(token, '/api/opt-outs', { phoneNumbers: ['9800015841', '9800015842'] });
    const one = await post(token, `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: ['919800015842'],
      content: 'Offer',
    });
    expect(one.json().message).toBe('Every recipient has opted out');
    const fine = await post(token, `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: ['919800015843'],
      content: 'Offer',
    });
    expect(fine.json()).toMatchObject({ totalChats: 1 });
    expect(fine.json().skipped).toBeUndefined();
    expect(await balanceOf(t.db, user.id)).toBe(8);
  });

  it('fails "Opted out" and refunds a queued recipient who opts out, by the API or by replying STOP', async () => {
    const { user, token, accountId } = await account(10);
    const res = await post(token, `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: ['919800015838', '919800015839', '919800015840'],
      content: 'Later',
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const { jobId } = res.json();
    expect(await balanceOf(t.db, user.id)).toBe(7);
    await post(token, '/api/opt-outs', { phoneNumbers: ['+91 98000 15838'] });
    expect(
      await takeOptOutReply(t.ctx, user.id, { from: '919800015839@s.whatsapp.net', text: ' Stop ' }),
    ).toMatchObject({ added: true });
    const rows = await recipientsOf(t.db, jobId);
    expect(rows.map((r) => [r.chatId.split('@')[0], r.status, r.error]).sort()).toEqual([
      ['919800015838', 'failed', 'Opted out'],
      ['919800015839', 'failed', 'Opted out'],
      ['919800015840', 'queued', null],
    ]);
    expect((await jobRow(t.db, jobId)).failedCount).toBe(2);
    expect(await balanceOf(t.db, user.id)).toBe(9);
    const ledger = await queryRows<{ n: number }>(
      t.db,
      sql`SELECT count(*)::int AS n FROM credit_ledger WHERE user_id = ${user.id} AND note = 'Opted out'`,
    );
    expect(ledger[0]!.n).toBeGreaterThan(0);
  });
});
