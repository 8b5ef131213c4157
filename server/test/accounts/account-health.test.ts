import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { evaluateHealth } from '../../src/accounts/health/service.ts';
import { liftEndedPauses } from '../../src/accounts/send-pause.ts';
import { queryRows } from '../../src/db/client.ts';
import { accountEvents, accounts, optOuts } from '../../src/db/schema.ts';
import { jobDetails } from '../fakes/messaging.ts';
import { account, appWithEngine, bearer, DB_KINDS, linkedAccount, OPEN_POLICY } from '../helpers.ts';
import { waitFor } from '../wait.ts';

const HOUR = 3_600_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

/**
 * An account's health from what the product saw (its recipients' outcomes,
 * delivery and replies, its opt-outs and its events), the breaker's pause and its end.
 * Recipients are written directly (delivery truth is filled by the engine on another branch).
 */
describe.each(DB_KINDS)('account health and the circuit breaker on %s', (kind) => {
  const users = new Set<string>();
  // The runner's own check never runs here: the tests call it.
  const { t } = appWithEngine(
    kind,
    { HEALTH_CHECK_MS: '3600000', SIMULATOR_LINK_AFTER_MS: '3600000' },
    users,
  );

  const owner = (phone: string, credits = 0) => linkedAccount(t, { credits, phone, track: users });
  const health = (token: string, accountId: string) =>
    t.app.inject({ method: 'GET', url: `/api/session/${accountId}/health`, headers: bearer(token) });
  const chat = (n: number) => `9197${String(10_000_000 + n)}@s.whatsapp.net`;

  /** Recipient rows of the account as the engine leaves them. */
  async function recipients(
    accountId: string,
    rows: Array<{
      chatId: string;
      status: 'sent' | 'failed';
      at: string;
      error?: string;
      undelivered?: boolean;
      replied?: boolean;
    }>,
  ) {
    for (const r of rows) {
      await t.db.execute(
        sql`INSERT INTO message_job_recipients
              (job_id, session_id, chat_id, status, sent_at, failed_at, error, undelivered_at, undelivered_reason,
               replied_at, reply_text, updated_at)
            VALUES ('health-test', ${accountId}, ${r.chatId}, ${r.status},
                    ${r.status === 'sent' ? r.at : null}::timestamptz,
                    ${r.status === 'failed' ? r.at : null}::timestamptz, ${r.error ?? null},
                    ${r.undelivered ? r.at : null}::timestamptz, ${r.undelivered ? 'No delivery receipt' : null},
                    ${r.replied ? r.at : null}::timestamptz, ${r.replied ? 'Thanks' : null}, ${r.at}::timestamptz)`,
      );
    }
  }
  const many = (n: number, from: number, row: Omit<Parameters<typeof recipients>[1][number], 'chatId'>) =>
    Array.from({ length: n }, (_, i) => ({ ...row, chatId: chat(from + i) }));

  it('scores the last day from outcomes, lookups, delivery, replies, STOPs and events', async () => {
    const { token, accountId, user } = await owner('919640002001');
    // Two days ago, outside the window: it only makes chat 1 a known contact.
    await recipients(accountId, [
      ...many(5, 1, { status: 'sent', at: ago(48 * HOUR) }),
      ...many(3, 900, { status: 'failed', at: ago(48 * HOUR), error: 'Not on WhatsApp' }),
    ]);
    await t.db
      .insert(accountEvents)
      .values({ accountId, kind: 'restricted', at: new Date(Date.now() - 48 * HOUR) });
    // The last day: 40 sent (4 undelivered, 2 replied), 10 not on WhatsApp, 1 refused, 3 opted out.
    await recipients(accountId, [
      ...many(4, 1, { status: 'sent', at: ago(HOUR), undelivered: true }),
      ...many(2, 5, { status: 'sent', at: ago(HOUR), replied: true }),
      ...many(34, 7, { status: 'sent', at: ago(2 * HOUR) }),
      ...many(10, 100, { status: 'failed', at: ago(HOUR), error: 'Not on WhatsApp' }),
      ...many(3, 200, { status: 'failed', at: ago(HOUR), error: 'Opted out' }),
      { chatId: chat(300), status: 'failed', at: ago(HOUR), error: 'Send failed: bad-request' },
    ]);
    // A row's last change is not its failure: the failures of two days ago, rewritten since (as an
    // erasure rewrites a number's rows), stay out of the window.
    await t.db.execute(
      sql`UPDATE message_job_recipients SET updated_at = now()
          WHERE session_id = ${accountId} AND status = 'failed' AND failed_at < now() - interval '1 day'`,
    );
    await t.db.insert(accountEvents).values([
      { accountId, kind: 'restricted', detail: 'Paused: WhatsApp restricted this account (463)' },
      { accountId, kind: 'rate-limited' },
      { accountId, kind: 'disconnected', detail: 'Connection lost (428)' },
    ]);
    // A STOP from a number the account never messaged says nothing about it.
    await t.db.insert(optOuts).values([
      { userId: user.id, phoneNumber: '919710000010', source: 'reply' },
      { userId: user.id, phoneNumber: '919799999999', source: 'reply' },
    ]);

    const res = await health(token, accountId);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.signals).toEqual({
      sent: 40,
      oneToOneSent: 40,
      failed: 1,
      undelivered: 4,
      lookups: 50,
      notOnWhatsApp: 10,
      restrictions: 1,
      rateLimited: 1,
      disconnects: 1,
      stops: 1,
      replies: 2,
      newContacts: 35,
    });
    // 100 - 25 (a 463) - 16.25 (20% not on WhatsApp) - 5 (a 429) - 18.75 (1 STOP of 40: 2.5%) = 35;
    // 1 failure of 41 and 10% undelivered are below where those signals start to count.
    expect(body).toMatchObject({ score: 35, state: 'watch', reason: 'WhatsApp restricted new chats once' });
    expect(Date.now() - new Date(body.since).getTime()).toBeGreaterThanOrEqual(24 * HOUR - 60_000);
    expect(body.pausedUntil).toBeNull();

    // Only the node that drives the account pauses it (here another node's check).
    await evaluateHealth({ ...t.ctx, nodeId: 'elsewhere' }, accountId);
    expect((await health(token, accountId)).json().state).toBe('watch');
  });

  it('pauses a sick account to protect it, until the user resumes; the window keeps its evidence', async () => {
    const { token, accountId } = await owner('919640002002');
    await recipients(accountId, [
      ...many(20, 400, { status: 'sent', at: ago(HOUR), replied: true }),
      ...many(30, 500, { status: 'failed', at: ago(HOUR), error: 'Not on WhatsApp' }),
    ]);
    const before = Date.now();
    const evaluated = await evaluateHealth(t.ctx, accountId);
    const reason = 'Paused to protect this account: 60% of the numbers looked up are not on WhatsApp';
    expect(evaluated).toMatchObject({ score: 35, state: 'paused', reason });
    const [row] = await t.db.select().from(accounts).where(eq(accounts.accountId, accountId));
    expect(row).toMatchObject({ sendPaused: true, statusReason: reason });
    // The cooling period: HEALTH_COOLING_MS, a day by default.
    expect(row!.sendPausedUntil!.getTime() - before).toBeGreaterThanOrEqual(24 * HOUR - 1000);
    const shown = (await health(token, accountId)).json();
    expect(shown).toMatchObject({ score: 35, state: 'paused', reason });
    expect(shown.pausedUntil).toBe(row!.sendPausedUntil!.toISOString());
    const events = await t.db.select().from(accountEvents).where(eq(accountEvents.accountId, accountId));
    expect(events.map((e) => [e.kind, e.detail])).toEqual([['protect-paused', reason]]);

    // Prometheus reads what the node evaluated.
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' });
    expect(metrics.body).toContain(`wa_account_health{session_id="${accountId}",state="paused"} 35`);

    // A second check does not pause again or count again.
    await evaluateHealth(t.ctx, accountId);
    expect(
      await t.db.select().from(accountEvents).where(eq(accountEvents.accountId, accountId)),
    ).toHaveLength(1);

    const resumed = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/resume`,
      headers: bearer(token),
    });
    expect(resumed.json()).toEqual({ success: true, message: 'Sending resumed' });
    // Resuming keeps the window's evidence: the account is still below the threshold.
    expect((await health(token, accountId)).json()).toMatchObject({
      score: 35,
      state: 'watch',
      signals: { lookups: 50, notOnWhatsApp: 30 },
    });
  });

  it('trips again at once after each resume while the numbers are not on WhatsApp, each cooling twice as long', async () => {
    const { token, accountId } = await owner('919640002004');
    const resume = () =>
      t.app.inject({ method: 'POST', url: `/api/session/${accountId}/resume`, headers: bearer(token) });
    const pausedFor = async () => {
      const [row] = await t.db.select().from(accounts).where(eq(accounts.accountId, accountId));
      expect(row!.sendPaused).toBe(true);
      return {
        hours: Math.round((row!.sendPausedUntil!.getTime() - Date.now()) / HOUR),
        reason: row!.statusReason,
      };
    };
    const lead = 'Paused to protect this account: 100% of the numbers looked up are not on WhatsApp';
    // A job of numbers none of which are on WhatsApp: 20 before the first check, 11 more each resume.
    await recipients(accountId, many(20, 800, { status: 'failed', at: ago(HOUR), error: 'Not on WhatsApp' }));
    expect(await evaluateHealth(t.ctx, accountId)).toMatchObject({ score: 35, state: 'paused' });
    expect(await pausedFor()).toEqual({ hours: 24, reason: lead });

    expect((await resume()).json()).toEqual({ success: true, message: 'Sending resumed' });
    await recipients(accountId, many(11, 820, { status: 'failed', at: ago(0), error: 'Not on WhatsApp' }));
    expect(await evaluateHealth(t.ctx, accountId)).toMatchObject({
      score: 35,
      state: 'paused',
      signals: { lookups: 31, notOnWhatsApp: 31 },
    });
    expect(await pausedFor()).toEqual({
      hours: 48,
      reason: `${lead}; paused again within a day, so for twice as long`,
    });

    // Even with nothing sent after the resume, the evidence still in the window trips it again.
    expect((await resume()).json()).toEqual({ success: true, message: 'Sending resumed' });
    expect(await evaluateHealth(t.ctx, accountId)).toMatchObject({ score: 35, state: 'paused' });
    expect(await pausedFor()).toEqual({
      hours: 96,
      reason: `${lead}; paused again within a day, so for 4 times as long`,
    });
    const shown = (await health(token, accountId)).json();
    expect(shown).toMatchObject({
      state: 'paused',
      reason: `${lead}; paused again within a day, so for 4 times as long`,
    });
    const events = await t.db.select().from(accountEvents).where(eq(accountEvents.accountId, accountId));
    expect(events.map((e) => e.kind)).toEqual(['protect-paused', 'protect-paused', 'protect-paused']);
  });

  it('ends the pause after the cooling period, and never replaces a pause WhatsApp set', async () => {
    const { token, accountId } = await owner('919640002003');
    await recipients(accountId, many(25, 600, { status: 'failed', at: ago(HOUR), error: 'Not on WhatsApp' }));
    expect(await evaluateHealth(t.ctx, accountId)).toMatchObject({ state: 'paused', score: 35 });
    // The cooling period (a day) is over: the evidence has left the window as the sweep lifts the pause.
    await t.db.execute(
      sql`UPDATE message_job_recipients SET failed_at = failed_at - interval '1 day' WHERE session_id = ${accountId}`,
    );
    await t.db.execute(
      sql`UPDATE account_events SET at = at - interval '1 day' WHERE session_id = ${accountId}`,
    );
    await t.db
      .update(accounts)
      .set({ sendPausedUntil: new Date(Date.now() - 1000) })
      .where(eq(accounts.accountId, accountId));
    expect(await liftEndedPauses(t.db)).toContain(accountId);
    expect(await evaluateHealth(t.ctx, accountId)).toMatchObject({ state: 'good', score: 100 });

    // WhatsApp's own restriction (no end given) keeps its reason: the breaker does not shorten it.
    const restricted = 'Paused: WhatsApp restricted this account from starting new chats';
    await t.db
      .update(accounts)
      .set({ sendPaused: true, sendPausedUntil: null, statusReason: restricted })
      .where(eq(accounts.accountId, accountId));
    await recipients(
      accountId,
      many(25, 700, {
        status: 'failed',
        at: new Date(Date.now() + 1000).toISOString(),
        error: 'Not on WhatsApp',
      }),
    );
    expect(await evaluateHealth(t.ctx, accountId, new Date(Date.now() + 2000))).toMatchObject({
      state: 'paused',
      reason: restricted,
      pausedUntil: null,
    });
    const [row] = await t.db.select().from(accounts).where(eq(accounts.accountId, accountId));
    expect(row).toMatchObject({ statusReason: restricted, sendPausedUntil: null });
    expect((await health(token, accountId)).json().reason).toBe(restricted);
  });

  it('answers only the owner and the admin who manages them', async () => {
    const { accountId } = await owner('919640002004');
    expect((await t.app.inject({ method: 'GET', url: `/api/session/${accountId}/health` })).statusCode).toBe(
      401,
    );
    const { token: otherToken } = await account(t);
    const res = await health(otherToken, accountId);
    expect(res.statusCode).toBe(404);
  });

  it('caps the numbers an account never messaged, per day, lets known numbers through, and shows why the job waits', async () => {
    const { token, accountId } = await owner('919640002005', 7);
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/session/${accountId}/policy`,
      headers: bearer(token),
      payload: { ...OPEN_POLICY, newContactsPerDay: 2 },
    });
    expect(put.json().policy.newContactsPerDay).toBe(2);
    const bad = await t.app.inject({
      method: 'PUT',
      url: `/api/session/${accountId}/policy`,
      headers: bearer(token),
      payload: { ...OPEN_POLICY, newContactsPerDay: 0 },
    });
    expect(bad.json()).toEqual({
      success: false,
      message: 'newContactsPerDay must be a whole number from 1 to 100,000, or null for no limit',
    });
    // The account messaged 919650001009 two days ago: a known number, never held by the cap.
    await recipients(accountId, [
      { chatId: '919650001009@s.whatsapp.net', status: 'sent', at: ago(48 * HOUR) },
    ]);
    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(token),
      payload: {
        chatIds: ['919650001001', '919650001002', '919650001003', '919650001009', '919650001004'],
        content: 'Hello',
      },
    });
    const jobId = sent.json().jobId as string;
    const held = await waitFor('the new-contact cap', async () => {
      const j = await jobDetails(t.app, token, jobId);
      return j.statusReason ? j : null;
    });
    expect(held.statusReason).toBe('Waiting: new-contact limit of 2 a day reached, resumes at 00:00');
    const statuses = await waitFor('the known number sent', async () => {
      const rows = await queryRows<{ status: string }>(
        t.db,
        sql`SELECT status FROM message_job_recipients WHERE job_id = ${jobId} ORDER BY id`,
      );
      return rows[3]?.status === 'sent' ? rows : null;
    });
    // Two new numbers went; the third and fifth wait; the known fourth went past them.
    expect(statuses.map((r) => r.status)).toEqual(['sent', 'sent', 'queued', 'sent', 'queued']);
    // A number first messaged today is known too: a second job to it goes while the cap holds.
    const again = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(token),
      payload: { chatIds: ['919650001005', '919650001001'], content: 'Hello again' },
    });
    const againId = again.json().jobId as string;
    const second = await waitFor('the known number of the second job', async () => {
      const rows = await queryRows<{ chat_id: string; status: string }>(
        t.db,
        sql`SELECT chat_id, status FROM message_job_recipients WHERE job_id = ${againId} ORDER BY id`,
      );
      return rows[1]?.status === 'sent' ? rows : null;
    });
    expect(second.map((r) => r.status)).toEqual(['queued', 'sent']);
    // Nothing more of the first job went meanwhile: its held numbers, due before the second job's,
    // stayed queued while the account sent past them.
    const after = await queryRows<{ status: string }>(
      t.db,
      sql`SELECT status FROM message_job_recipients WHERE job_id = ${jobId} ORDER BY id`,
    );
    expect(after).toEqual(statuses);
    const policy = (
      await t.app.inject({ method: 'GET', url: `/api/session/${accountId}/policy`, headers: bearer(token) })
    ).json();
    expect(policy.today).toMatchObject({ newContactsSent: 2, newContactsLimit: 2 });
    // Lifted: the rest go.
    await t.app.inject({
      method: 'PUT',
      url: `/api/session/${accountId}/policy`,
      headers: bearer(token),
      payload: { ...OPEN_POLICY, newContactsPerDay: null },
    });
    for (const id of [jobId, againId])
      await waitFor('the rest sent', async () => {
        const j = (
          await t.app.inject({
            method: 'GET',
            url: `/api/message-jobs-details/${id}?media=0`,
            headers: bearer(token),
          })
        ).json().job;
        return j.status === 'completed' ? j : null;
      });
  });
});
