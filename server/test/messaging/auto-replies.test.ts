import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { takeAutoReply } from '../../src/messaging/auto-reply/auto-reply.ts';
import { balanceOf, expectLedgerChain } from '../fakes/messaging.ts';
import { appWithEngine, bearer, DB_KINDS, linkedAccount, type TestApp } from '../helpers.ts';
import { waitFor } from '../wait.ts';

const PRICE_RULES = [
  { keyword: 'price', match: 'contains', reply: { type: 'string', content: 'Our price list: 499 / 999' } },
  { keyword: 'दाम', match: 'contains', reply: { type: 'string', content: 'दाम: ₹499' } },
  { keyword: 'all', match: 'contains', reply: { type: 'string', content: 'All our products' } },
  {
    keyword: 'hi',
    match: 'exact',
    reply: { type: 'string', content: 'Hello! Write “price” for our prices.' },
  },
];

/** The auto-reply jobs of a user: each job's text and its recipients' numbers. */
const repliesOf = (t: TestApp, userId: string) =>
  queryRows<{ content: string; chat_id: string }>(
    t.db,
    sql`SELECT j.content, r.chat_id FROM message_jobs j JOIN message_job_recipients r ON r.job_id = j.id
        WHERE j.user_id = ${userId} ORDER BY j.created_at, r.id`,
  ).then((rows) => rows.map((r) => [r.content, r.chat_id.split('@')[0]]));

describe.each(DB_KINDS)('keyword auto-replies (%s)', (kind) => {
  const users = new Set<string>();
  const { t } = appWithEngine(kind, { SIMULATOR_GROUPS: '1' }, users);

  const setRules = (token: string, accountId: string, rules: object[]) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/session/${accountId}/auto-replies`,
      headers: bearer(token),
      payload: { rules },
    });
  const inbound = (token: string, accountId: string, from: string, text: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/simulator/sessions/${accountId}/inbound`,
      headers: bearer(token),
      payload: { from, text },
    });
  async function withRules(credits: number) {
    const a = await linkedAccount(t, { credits, track: users });
    const res = await setRules(a.token, a.accountId, PRICE_RULES);
    expect(res.statusCode, res.body).toBe(200);
    return a;
  }

  it('keeps the rules as given; refuses an opt-out word, a repeated keyword and an empty reply', async () => {
    const { token, accountId } = await withRules(0);
    const got = await t.app.inject({
      method: 'GET',
      url: `/api/session/${accountId}/auto-replies`,
      headers: bearer(token),
    });
    expect(got.json()).toEqual({ success: true, rules: PRICE_RULES });
    const stop = await setRules(token, accountId, [
      { keyword: ' Stop ', match: 'exact', reply: { content: 'No' } },
    ]);
    expect(stop.statusCode).toBe(400);
    expect(stop.json().message).toBe(
      '“Stop” is an opt-out word: it opts the sender out and cannot be an auto-reply keyword',
    );
    const twice = await setRules(token, accountId, [PRICE_RULES[0], { ...PRICE_RULES[0], keyword: 'PRICE' }]);
    expect(twice.json().message).toBe('The keyword “PRICE” is in two rules');
    const empty = await setRules(token, accountId, [
      { keyword: 'x', match: 'exact', reply: { type: 'string', content: ' ' } },
    ]);
    expect(empty.statusCode).toBe(400);
    // Nothing refused was kept.
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/session/${accountId}/auto-replies`,
          headers: bearer(token),
        })
      ).json().rules,
    ).toEqual(PRICE_RULES);
  });

  it('answers a matching text once per person per rule within the period, charged one credit each, in any script', async () => {
    const { user, token, accountId } = await withRules(10);
    expect((await inbound(token, accountId, '919800050001', 'What is the price?')).statusCode).toBe(200);
    await waitFor('the first auto-reply', async () => (await repliesOf(t, user.id)).length === 1);
    // Again within the period: no second reply. 'priceless' holds no word 'price'; 'hi there' is not exactly 'hi'.
    await inbound(token, accountId, '919800050001', 'PRICE please');
    await inbound(token, accountId, '919800050002', 'This is priceless');
    await inbound(token, accountId, '919800050002', 'hi there');
    await inbound(token, accountId, '919800050003', 'इसका दाम क्या है?');
    await inbound(token, accountId, '919800050004', ' Hi! ');
    await waitFor('the other auto-replies', async () => (await repliesOf(t, user.id)).length === 3);
    // The batches of what came in are taken in order: the last one is in once its reply is.
    expect(await repliesOf(t, user.id)).toEqual([
      ['Our price list: 499 / 999', '919800050001'],
      ['दाम: ₹499', '919800050003'],
      ['Hello! Write “price” for our prices.', '919800050004'],
    ]);
    expect(await balanceOf(t.db, user.id)).toBe(7);

    // Once the period has passed, the same person asking again is answered again.
    await t.db.execute(
      sql`UPDATE auto_replies_sent SET sent_at = sent_at - interval '25 hours' WHERE session_id = ${accountId}`,
    );
    await inbound(token, accountId, '919800050001', 'price?');
    await waitFor('the reply after the period', async () => (await repliesOf(t, user.id)).length === 4);
    expect(await balanceOf(t.db, user.id)).toBe(6);
    await expectLedgerChain(t.db, user.id);
  });

  it('an opt-out word is never answered (STOP ALL holds the keyword “all”); an opted-out person is not answered nor charged', async () => {
    const { user, token, accountId } = await withRules(10);
    await inbound(token, accountId, '919800060001', 'Stop all');
    await waitFor('the opt-out', async () => {
      const rows = await queryRows<{ n: number }>(
        t.db,
        sql`SELECT count(*)::int AS n FROM opt_outs WHERE user_id = ${user.id}`,
      );
      return rows[0]?.n === 1;
    });
    await inbound(token, accountId, '919800060001', 'what is the price');
    // A later text of another person shows the earlier ones were taken.
    await inbound(token, accountId, '919800060002', 'price');
    await waitFor('the other person’s reply', async () => (await repliesOf(t, user.id)).length === 1);
    expect(await repliesOf(t, user.id)).toEqual([['Our price list: 499 / 999', '919800060002']]);
    expect(await balanceOf(t.db, user.id)).toBe(9);
    // Its claim was given back: the opted-out person holds no record of a reply.
    const claims = await queryRows<{ person_key: string }>(
      t.db,
      sql`SELECT person_key FROM auto_replies_sent WHERE session_id = ${accountId} ORDER BY person_key`,
    );
    expect(claims.map((c) => c.person_key)).toEqual(['919800060002@s.whatsapp.net']);
  });

  it('never answers a group or a LID (no number or BSUID to write to)', async () => {
    const { user, accountId } = await withRules(10);
    const account = { accountId, userId: user.id };
    expect(
      await takeAutoReply(t.ctx, account, { from: '120363000000000001@g.us', text: 'price' }),
    ).toBeNull();
    expect(await takeAutoReply(t.ctx, account, { from: '123451234512345@lid', text: 'price' })).toBeNull();
    expect(await repliesOf(t, user.id)).toEqual([]);
    expect(await balanceOf(t.db, user.id)).toBe(10);
  });
});
