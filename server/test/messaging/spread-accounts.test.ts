import { SPREAD_TEXTS } from '@wa/contract';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { creditLedger, messageJobs } from '../../src/db/schema.ts';
import { splitByAllowance } from '../../src/messaging/accept/spread.ts';
import { connectedAccount } from '../fakes/accounts.ts';
import {
  balanceOf,
  buildNamedGroups,
  countRows,
  expectLedgerMatches,
  jobDetails,
  recipientsOf,
  waitForJobEnd,
} from '../fakes/messaging.ts';
import { account, appWithEngine, bearer, buildUser, DB_KINDS, loginToken, OPEN_POLICY } from '../helpers.ts';
import { waitFor } from '../wait.ts';

const count = (xs: number[], v: number) => xs.filter((x) => x === v).length;

describe('splitting recipients by what each account may still send today', () => {
  it('alternates equal allowances and keeps to the proportion of unequal ones', () => {
    expect(splitByAllowance(6, [Infinity, Infinity])).toEqual([0, 1, 0, 1, 0, 1]);
    expect(splitByAllowance(6, [50, 50, 50])).toEqual([0, 1, 2, 0, 1, 2]);
    const limited = splitByAllowance(100, [10, Infinity]);
    expect([count(limited, 0), count(limited, 1)]).toEqual([9, 91]);
    // Ten recipients: both accounts could send them all today, so they share them.
    expect(splitByAllowance(10, [10, Infinity])).toEqual([0, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
    const unequal = splitByAllowance(20, [10, 30]);
    expect([count(unequal, 0), count(unequal, 1)]).toEqual([5, 15]);
    // An account with nothing left today gets nothing while another has room.
    expect(splitByAllowance(4, [0, 7])).toEqual([1, 1, 1, 1]);
    // None has room: all wait for the day to turn, shared equally.
    expect(splitByAllowance(4, [0, 0])).toEqual([0, 1, 0, 1]);
  });
});

const numbers = (n: number, from: number) =>
  Array.from({ length: n }, (_, i) => `9197${40_001_001 + from + i}`);
const POLICY = { ...OPEN_POLICY, typing: false };

describe.each(DB_KINDS)('one job spread over several accounts on %s', (kind) => {
  const users = new Set<string>();
  const { t } = appWithEngine(kind, { FAILOVER_AFTER_MS: '1000', SIMULATOR_LINK_AFTER_MS: '3600000' }, users);

  async function owner(credits: number, phones: string[]) {
    const { user, token } = await account(t, { credits, track: users });
    const accounts: string[] = [];
    for (const phone of phones) accounts.push(await connectedAccount(t, token, phone));
    return { user, token, sessions: accounts };
  }
  const send = (
    token: string,
    accountId: string,
    payload: Record<string, unknown>,
    route = 'sendIndividualMessage',
  ) =>
    t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/${route}`,
      headers: bearer(token),
      payload,
    });
  const putPolicy = (token: string, accountId: string, policy: Record<string, unknown>) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/session/${accountId}/policy`,
      headers: bearer(token),
      payload: policy,
    });
  const outbox = async (token: string, accountId: string) =>
    (
      await t.app.inject({
        method: 'GET',
        url: `/api/simulator/sessions/${accountId}/outbox`,
        headers: bearer(token),
      })
    ).json().messages as Array<{ chatId: string }>;
  const details = (token: string, jobId: string) => jobDetails(t.app, token, jobId);

  /** Every chat got exactly one message across the accounts, from the account its row names. */
  async function expectSentOnceEach(token: string, jobId: string, accounts: string[], chats: string[]) {
    const rows = await recipientsOf(t.db, jobId);
    const senders = new Map<string, string[]>();
    for (const s of accounts)
      for (const m of await outbox(token, s)) senders.set(m.chatId, [...(senders.get(m.chatId) ?? []), s]);
    for (const chat of chats) {
      const row = rows.find((r) => r.chatId === `${chat}@s.whatsapp.net`)!;
      expect(row.status, chat).toBe('sent');
      expect(senders.get(row.chatId), chat).toEqual([row.accountId]);
    }
    return rows;
  }

  it('alternates accounts with equal allowances, shows the sender per message and charges one credit each', async () => {
    const { user, token, sessions: accounts } = await owner(12, ['919740001001', '919740001002']);
    const [a, b] = accounts as [string, string];
    const chats = numbers(10, 0);
    const res = await send(token, a, { chatIds: chats, content: 'Spread', sessionIds: [b, a] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, totalChats: 10 });
    const jobId = res.json().jobId as string;
    const done = await waitForJobEnd(t.app, token, jobId);
    expect(done).toMatchObject({
      status: 'completed',
      sessionId: a,
      sessionIds: [a, b],
      results: { success: 10 },
    });

    const rows = await expectSentOnceEach(token, jobId, [a, b], chats);
    expect(rows.map((r) => r.accountId)).toEqual(chats.map((_, i) => (i % 2 === 0 ? a : b)));
    const shown = (await details(token, jobId)).details as Array<{ chatId: string; sessionId: string }>;
    expect(shown.map((d) => d.sessionId)).toEqual(rows.map((r) => r.accountId));

    expect(await balanceOf(t.db, user.id)).toBe(2);
    const ledger = await t.db.select().from(creditLedger).where(eq(creditLedger.jobId, jobId));
    expect(ledger.map((l) => [l.reason, l.delta])).toEqual([['send', -10]]);
  });

  it('gives an account with a daily limit of 10 its share of 100 and the unlimited one the rest', async () => {
    const { user, token, sessions: accounts } = await owner(100, ['919740002001', '919740002002']);
    const [a, b] = accounts as [string, string];
    expect((await putPolicy(token, a, { ...POLICY, dailyLimit: 10 })).statusCode).toBe(200);
    const chats = numbers(100, 100);
    const res = await send(token, a, { chatIds: chats, content: 'Limited', sessionIds: [b] });
    const jobId = res.json().jobId as string;
    await waitForJobEnd(t.app, token, jobId);
    const rows = await expectSentOnceEach(token, jobId, [a, b], chats);
    expect(rows.filter((r) => r.accountId === a)).toHaveLength(9);
    expect(rows.filter((r) => r.accountId === b)).toHaveLength(91);
    expect(await balanceOf(t.db, user.id)).toBe(0);
  });

  it('moves the waiting recipients of a logged-out account to the healthy one, and sends each once', async () => {
    const { user, token, sessions: accounts } = await owner(10, ['919740003001', '919740003002']);
    const [a, b] = accounts as [string, string];
    // B sends one message every 1.5 s, A at once: most of B's share is still waiting when B goes.
    await putPolicy(token, b, { ...POLICY, delayMinMs: 1500, delayMaxMs: 1500 });
    const chats = numbers(10, 300);
    const res = await send(token, a, { chatIds: chats, content: 'Failover', sessionIds: [b] });
    const jobId = res.json().jobId as string;
    await waitFor('B to send one', async () => (await outbox(token, b)).length >= 1);
    const logout = await t.app.inject({
      method: 'POST',
      url: `/api/simulator/sessions/${b}/logout`,
      headers: bearer(token),
    });
    expect(logout.statusCode).toBe(200);
    const loggedOutAt = Date.now();
    const done = await waitForJobEnd(t.app, token, jobId);
    expect(done).toMatchObject({ status: 'completed', results: { success: 10, failed: 0 } });
    // Not before FAILOVER_AFTER_MS (1 s).
    expect(Date.now() - loggedOutAt).toBeGreaterThanOrEqual(900);

    const rows = await expectSentOnceEach(token, jobId, [a, b], chats);
    const byB = rows.filter((r) => r.accountId === b).length;
    expect(byB).toBeGreaterThanOrEqual(1);
    expect(byB).toBeLessThan(5);
    expect(rows.filter((r) => r.accountId === a)).toHaveLength(10 - byB);
    expect(await balanceOf(t.db, user.id)).toBe(0);
    const ledger = await t.db
      .select()
      .from(creditLedger)
      .where(and(eq(creditLedger.jobId, jobId), eq(creditLedger.reason, 'refund')));
    expect(ledger).toHaveLength(0);
  });

  it('refuses an account that is not the user’s, and sessionIds on a group send', async () => {
    const { user, token, sessions: accounts } = await owner(5, ['919740004001']);
    const [a] = accounts as [string];
    const stranger = await owner(0, ['919740004002']);
    const jobsBefore = (await t.db.select().from(messageJobs).where(eq(messageJobs.userId, user.id))).length;
    const recipientsBefore = await countRows(t.db, 'message_job_recipients');

    for (const other of [stranger.sessions[0]!, '919999999999_abcdef']) {
      const res = await send(token, a, { chatIds: numbers(2, 400), content: 'x', sessionIds: [other] });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ success: false, message: SPREAD_TEXTS.notYours(other) });
    }
    await buildNamedGroups(t, a, ['120363000000000001@g.us']);
    const group = await send(
      token,
      a,
      { chatIds: ['120363000000000001@g.us'], content: 'x', sessionIds: [stranger.sessions[0]!] },
      'sendBulkMessage',
    );
    expect(group.statusCode).toBe(400);
    expect(group.json()).toEqual({ success: false, message: SPREAD_TEXTS.groups });

    expect(await balanceOf(t.db, user.id)).toBe(5);
    expect((await t.db.select().from(messageJobs).where(eq(messageJobs.userId, user.id))).length).toBe(
      jobsBefore,
    );
    expect(await countRows(t.db, 'message_job_recipients')).toBe(recipientsBefore);
  });
});

describe.each(DB_KINDS)('a spread job whose account stays down, with no failover, on %s', (kind) => {
  const { t } = appWithEngine(kind, {
    FAILOVER_AFTER_MS: '3600000',
    SESSION_WAIT_MS: '1000',
    SIMULATOR_LINK_AFTER_MS: '3600000',
  });

  it('fails (and refunds) only the down account’s recipients after SESSION_WAIT_MS; the healthy one sends its share', async () => {
    const user = await buildUser(t, { credits: 6 });
    const token = await loginToken(t.app, user.username);
    const a = await connectedAccount(t, token, '919740005001');
    const b = await connectedAccount(t, token, '919740005002');
    await t.app.inject({
      method: 'PUT',
      url: `/api/session/${b}/policy`,
      headers: bearer(token),
      payload: { ...POLICY, delayMinMs: 1500, delayMaxMs: 1500 },
    });
    const chats = numbers(6, 500);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/session/${a}/sendIndividualMessage`,
      headers: bearer(token),
      payload: { chatIds: chats, content: 'No failover', sessionIds: [b] },
    });
    const jobId = res.json().jobId as string;
    await waitFor('B to send one', async () => {
      const rows = await recipientsOf(t.db, jobId);
      return rows.some((r) => r.accountId === b && r.status === 'sent');
    });
    await t.app.inject({
      method: 'POST',
      url: `/api/simulator/sessions/${b}/logout`,
      headers: bearer(token),
    });
    const done = await waitForJobEnd(t.app, token, jobId);

    const rows = await recipientsOf(t.db, jobId);
    const ofA = rows.filter((r) => r.accountId === a);
    const failed = rows.filter((r) => r.status === 'failed');
    expect(ofA).toHaveLength(3);
    expect(ofA.every((r) => r.status === 'sent')).toBe(true);
    expect(failed.length).toBeGreaterThanOrEqual(1);
    expect(failed.every((r) => r.accountId === b && r.error === 'Session is not connected')).toBe(true);
    expect(done).toMatchObject({
      status: 'failed',
      results: { success: 6 - failed.length, failed: failed.length },
    });
    expect(await balanceOf(t.db, user.id)).toBe(failed.length);
    await expectLedgerMatches(t.db, [user.id]);
  });
});
