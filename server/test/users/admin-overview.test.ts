import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { addCredits, debitCredits } from '../../src/credits/credits.ts';
import { queryRows } from '../../src/db/client.ts';
import { messageJobRecipients, messageJobs } from '../../src/db/schema.ts';
import { buildAccount } from '../fakes/messaging.ts';
import { bearer, buildAdmin, buildUser, DB_KINDS, loginToken, testAppFor } from '../helpers.ts';

const DAY = 86_400_000;

describe.each(DB_KINDS)('the admin overview on %s', (kind) => {
  const t = testAppFor(kind);

  async function job(
    userId: string,
    accountId: string,
    createdAt: Date,
    outcomes: { status: 'sent' | 'failed'; at: Date }[],
  ) {
    const id = crypto.randomUUID();
    const sent = outcomes.filter((o) => o.status === 'sent').length;
    await t.db.insert(messageJobs).values({
      id,
      userId,
      accountId,
      audience: 'individuals',
      messageType: 'text',
      content: 'Hi',
      status: sent === outcomes.length ? 'completed' : 'failed',
      total: outcomes.length,
      sentCount: sent,
      failedCount: outcomes.length - sent,
      createdAt,
      finishedAt: outcomes.at(-1)?.at ?? createdAt,
    });
    await t.db.insert(messageJobRecipients).values(
      outcomes.map((o, i) => ({
        jobId: id,
        accountId,
        chatId: `91900000${String(i).padStart(4, '0')}@s.whatsapp.net`,
        status: o.status,
        sentAt: o.status === 'sent' ? o.at : null,
        updatedAt: o.at,
      })),
    );
    return id;
  }

  it("sums each managed user's month, accounts and last sign-in, with totals and 30 days of messages", async () => {
    const admin = await buildAdmin(t);
    const asha = await buildUser(t, { managedBy: admin.id, name: 'Asha', credits: 100 });
    const ravi = await buildUser(t, { managedBy: admin.id, name: 'Ravi', credits: 20 });
    const stranger = await buildUser(t, { credits: 999 });
    await loginToken(t.app, asha.username);

    const now = new Date();
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 0, 30));
    const s1 = await buildAccount(t, asha.id, { status: 'CONNECTED' });
    await buildAccount(t, asha.id, { status: 'DISCONNECTED' });
    await buildAccount(t, stranger.id, { status: 'CONNECTED' });

    // This month: 3 sent + 1 failed, and 2 sent. A job of the month before counts in no month figure.
    const j1 = await job(asha.id, s1, now, [
      { status: 'sent', at: today },
      { status: 'sent', at: today },
      { status: 'sent', at: new Date(today.getTime() - DAY) },
      { status: 'failed', at: today },
    ]);
    await job(asha.id, s1, now, [
      { status: 'sent', at: today },
      { status: 'sent', at: today },
    ]);
    await job(asha.id, s1, new Date(monthStart.getTime() - 5 * DAY), [
      { status: 'failed', at: new Date(monthStart.getTime() - 5 * DAY) },
    ]);
    await job(stranger.id, s1, now, [{ status: 'sent', at: today }]);
    await debitCredits(t.db, asha.id, 6, 'send', { jobId: j1 });
    await addCredits(t.db, asha.id, 1, 'refund', { jobId: j1 });
    await debitCredits(t.db, asha.id, 2, 'send');

    const res = await t.app.inject({
      method: 'GET',
      url: '/api/admin/overview',
      headers: bearer(await loginToken(t.app, admin.username)),
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.users).toEqual([
      {
        id: asha.id,
        name: 'Asha',
        username: asha.username,
        disabled: false,
        balance: 93,
        creditsUsedThisMonth: 7,
        jobsThisMonth: 2,
        failureRateThisMonth: 1 / 6,
        accountsConnected: 1,
        accountsTotal: 2,
        lastSignInAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        deliveryThisMonth: expect.objectContaining({ sent: expect.any(Number) }),
      },
      {
        id: ravi.id,
        name: 'Ravi',
        username: ravi.username,
        disabled: false,
        balance: 20,
        creditsUsedThisMonth: 0,
        jobsThisMonth: 0,
        failureRateThisMonth: null,
        accountsConnected: 0,
        accountsTotal: 0,
        lastSignInAt: null,
        deliveryThisMonth: expect.objectContaining({ sent: expect.any(Number) }),
      },
    ]);
    expect(body.totals).toEqual({
      users: 2,
      balance: 113,
      creditsUsedThisMonth: 7,
      jobsThisMonth: 2,
      failureRateThisMonth: 1 / 6,
      accountsConnected: 1,
      accountsTotal: 2,
      deliveryThisMonth: { sent: 5, delivered: 0, read: 0, replied: 0, undelivered: 0 },
    });
    expect(body.messagesPerDay).toHaveLength(30);
    const todayKey = today.toISOString().slice(0, 10);
    const yesterdayKey = new Date(today.getTime() - DAY).toISOString().slice(0, 10);
    expect(body.messagesPerDay.at(-1)).toEqual({ day: todayKey, sent: 4, failed: 1 });
    expect(body.messagesPerDay.at(-2)).toEqual({ day: yesterdayKey, sent: 1, failed: 0 });
    const total = body.messagesPerDay.reduce((n: number, d: { sent: number }) => n + d.sent, 0);
    // the stranger's message is not counted; last month's failure is older than 30 days or in the chart
    expect(total).toBe(5);
    const [ledger] = await queryRows<{ s: number }>(
      t.db,
      sql`SELECT sum(delta)::int AS s FROM credit_ledger WHERE user_id = ${asha.id}`,
    );
    expect(ledger!.s).toBe(93);
  });

  it('is for admins only', async () => {
    const user = await buildUser(t);
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/admin/overview',
      headers: bearer(await loginToken(t.app, user.username)),
    });
    expect(res.statusCode).toBe(403);
  });
});
