import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LINKED_PHONE_CAPABILITIES } from '@wa/contract';
import { eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { ledgerSum } from '../../src/credits/credits.ts';
import { accounts, messageJobRecipients, users, waGroups } from '../../src/db/schema.ts';
import { connectedAccount } from '../fakes/accounts.ts';
import { retryJob, waitForJobEnd } from '../fakes/messaging.ts';
import { appWithEngine, bearer, buildAdmin, buildUser, DB_KINDS, loginToken } from '../helpers.ts';
import { waitFor } from '../wait.ts';

/** A disabled user's jobs, or a revoked bulk flag, stop the sending at once. */
describe.each(DB_KINDS)('a disabled user or a revoked flag mid-job (%s)', (kind) => {
  const outbox = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wa-disable-')), 'outbox.jsonl');
  afterAll(() => fs.rmSync(path.dirname(outbox), { recursive: true, force: true }));
  const { t } = appWithEngine(kind, { SIMULATOR_OUTBOX_FILE: outbox, SIMULATOR_SEND_LATENCY_MS: '40' });

  const statuses = async (jobId: string) => {
    const rows = await t.db
      .select({ s: messageJobRecipients.status, n: sql<number>`count(*)::int` })
      .from(messageJobRecipients)
      .where(eq(messageJobRecipients.jobId, jobId))
      .groupBy(messageJobRecipients.status);
    return Object.fromEntries(rows.map((r) => [r.s, r.n])) as Record<string, number>;
  };
  const balance = async (userId: string) =>
    (await t.db.select({ c: users.credits }).from(users).where(eq(users.id, userId)))[0]!.c;
  /** Outbox lines of these chats written after `since` (the simulator writes a line per send). */
  const sentAfter = (chats: string[], since: number) =>
    fs.existsSync(outbox)
      ? fs
          .readFileSync(outbox, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { chatId: string; sentAt: string })
          .filter((l) => chats.some((c) => l.chatId.startsWith(c)) && Date.parse(l.sentAt) > since).length
      : 0;

  async function startJob(phone: string, prefix: string) {
    const admin = await buildAdmin(t);
    const adminToken = await loginToken(t.app, admin.username);
    const user = await buildUser(t, { managedBy: admin.id, credits: 500 });
    const token = await loginToken(t.app, user.username);
    const accountId = await connectedAccount(t, token, phone);
    const chats = Array.from({ length: 80 }, (_, i) => `${prefix}${String(i + 1).padStart(4, '0')}`);
    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(token),
      payload: { chatIds: chats, content: 'mid-job' },
    });
    expect(sent.statusCode).toBe(200);
    const jobId = sent.json().jobId as string;
    await waitFor('the first sends', async () => ((await statuses(jobId)).sent ?? 0) >= 5, 20_000);
    return { adminToken, user, token, sessionId: accountId, chats, jobId };
  }

  /**
   * The admin changes the user through the admin route: its answer leaves nothing of the job
   * waiting but the send in flight (a linked phone sends one at a time), which goes back to the
   * queue with no ack when a disabled user's account stops, and is failed by the engine then.
   */
  const throughTheRoute = (payload: object) => async (job: Awaited<ReturnType<typeof startJob>>) => {
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/users/${job.user.id}`,
      headers: bearer(job.adminToken),
      payload,
    });
    expect(res.statusCode).toBe(200);
    const s = await statuses(job.jobId);
    expect((s.queued ?? 0) + (s.sending ?? 0)).toBeLessThanOrEqual(LINKED_PHONE_CAPABILITIES.concurrentSends);
  };

  /**
   * `change` takes the user's right to send away while the job runs. Once no recipient is queued
   * or sending, each credit not spent on a send is back and the ledger says so; once
   * `nothingLater` has shown that no send of the job can come after it, nothing was sent after
   * the change. Resolves with the recipients' statuses.
   */
  async function changeMidJob(
    job: Awaited<ReturnType<typeof startJob>>,
    change: (job: Awaited<ReturnType<typeof startJob>>) => Promise<void>,
    timeoutMs: number,
    nothingLater: (job: Awaited<ReturnType<typeof startJob>>) => Promise<unknown>,
  ) {
    await change(job);
    // A send already handed to WhatsApp when the change was made may still finish (one latency).
    const changedAt = Date.now() + 40 + 50;
    const ended = await waitFor(
      'every recipient to end',
      async () => {
        const s = await statuses(job.jobId);
        return (s.queued ?? 0) + (s.sending ?? 0) === 0 ? s : null;
      },
      timeoutMs,
    ).catch(async (err) => {
      throw new Error(`${err}: ${JSON.stringify(await statuses(job.jobId))}`);
    });
    expect(await balance(job.user.id)).toBe(500 - ended.sent!);
    expect(await ledgerSum(t.db, job.user.id)).toBe(await balance(job.user.id));
    await nothingLater(job);
    expect(sentAfter(job.chats, changedAt)).toBe(0);
    return ended;
  }

  /**
   * A later message to a group of the same account, ended: groups may still be sent to, and the
   * account's loop claims the earliest due recipient first and sends one at a time, so a send of
   * the job would have come before it.
   */
  async function laterGroupSend(job: Awaited<ReturnType<typeof startJob>>) {
    const [group] = await waitFor('groups cached', async () => {
      const rows = await t.db.select().from(waGroups).where(eq(waGroups.accountId, job.sessionId));
      return rows.filter((g) => !g.announce).map((g) => g.groupId);
    });
    const later = await t.app.inject({
      method: 'POST',
      url: `/api/session/${job.sessionId}/sendBulkMessage`,
      headers: bearer(job.token),
      payload: { chatIds: [group], content: 'later' },
    });
    expect(later.statusCode, later.body).toBe(200);
    expect((await waitForJobEnd(t.app, job.token, later.json().jobId)).status).toBe('completed');
  }

  it('disabling the user: no send after the answer, the rest refunded at once, sessions stopped', async () => {
    const job = await startJob(kind === 'pglite' ? '919740000001' : '919740000002', '9176100');
    // The account's driver releases its lease once it has closed the connection: the simulator
    // writes no send of a closed connection.
    const ended = await changeMidJob(job, throughTheRoute({ disabled: true }), 5000, () =>
      waitFor('the connection closed', async () => {
        const [row] = await t.db.select().from(accounts).where(eq(accounts.accountId, job.sessionId));
        return row!.ownerNode === null;
      }),
    );
    expect(ended.sent! + (ended.failed ?? 0) + (ended.cancelled ?? 0)).toBe(80);
    const [account] = await t.db.select().from(accounts).where(eq(accounts.accountId, job.sessionId));
    expect(account!.desiredState).toBe('stopped');
  });

  it('revoking the bulk flag: the individual sends stop and are refunded; a retry answers 403', async () => {
    const job = await startJob(kind === 'pglite' ? '919740000011' : '919740000012', '9176200');
    const ended = await changeMidJob(
      job,
      throughTheRoute({ is_bulk_messaging_enabled: false }),
      10_000,
      laterGroupSend,
    );
    expect(ended.failed ?? 0).toBeGreaterThan(0);
    const retry = await retryJob(t.app, job.token, job.jobId);
    expect(retry.statusCode).toBe(403);
    expect(retry.json()).toEqual({
      success: false,
      message: 'Bulk messaging is not enabled for your account',
    });
  });

  it('a flag revoked by a process that died before its cleanup: the claim sends none of the job, the engine fails and refunds the rest', async () => {
    const job = await startJob(kind === 'pglite' ? '919740000021' : '919740000022', '9176300');
    // The admin route's update committed, and its process died before it failed the queue: the
    // users row is all that changed. The claim reads it at every claim; the dispatcher finds the
    // waiting recipients of a forbidden job and fails them.
    const ended = await changeMidJob(
      job,
      async () => {
        await t.db.update(users).set({ isBulkMessagingEnabled: false }).where(eq(users.id, job.user.id));
      },
      10_000,
      laterGroupSend,
    );
    expect(ended.failed ?? 0).toBeGreaterThan(0);
    const reasons = await t.db
      .selectDistinct({ error: messageJobRecipients.error })
      .from(messageJobRecipients)
      .where(sql`${messageJobRecipients.jobId} = ${job.jobId} AND ${messageJobRecipients.status} = 'failed'`);
    expect(reasons.map((r) => r.error)).toEqual(['Bulk messaging is not enabled for your account']);
  });
});
