import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerSum } from '../../src/credits/credits.ts';
import { creditLedger, messageJobRecipients, messageJobs, users } from '../../src/db/schema.ts';
import { type Engine, startEngine } from '../../src/engine.ts';
import { connectedAccount } from '../fakes/accounts.ts';
import { bearer, buildUser, createTestApp, DB_KINDS, loginToken, type TestApp } from '../helpers.ts';
import { waitFor } from '../wait.ts';
import { recordFigure } from './support/figures.ts';
import { readOutbox } from './support/server-process.ts';

/**
 * Sends, retries and deletes fired at once on the same jobs and the same balance,
 * through the HTTP API with the engine sending (simulator, zero pace). Each job's ledger rows
 * are set against what happened to its recipients (the outbox tells what was sent, even for a
 * job that was deleted since).
 */

const INITIAL = 1000;
const PER_JOB = 50;
/** One in five recipients times out (917040…): it fails, is refunded, can be retried. */
const chatsOf = (k: number) =>
  Array.from({ length: PER_JOB }, (_, i) =>
    i % 5 === 4
      ? // Times out (simulator/numbers.ts): a failure Retry Failed requeues ('Not on WhatsApp' it would not).
        `917040${String(k).padStart(3, '0')}${String(i).padStart(2, '0')}1`
      : `9173${String(k).padStart(3, '0')}0${String(i + 1).padStart(4, '0')}`,
  );

describe.each(DB_KINDS)('races on one balance and the same jobs (%s)', (kind) => {
  const section = `races (${kind})`;
  let t: TestApp;
  let engine: Engine;
  const outbox = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wa-races-')), 'outbox.jsonl');
  beforeAll(async () => {
    t = await createTestApp(kind, {
      SIMULATOR_OUTBOX_FILE: outbox,
      SIMULATOR_SEND_LATENCY_MS: '1',
      SIMULATOR_GROUPS: '2',
    });
    engine = await startEngine(t.ctx);
  });
  afterAll(async () => {
    await engine?.stop();
    await t?.close();
    fs.rmSync(path.dirname(outbox), { recursive: true, force: true });
  });

  it('no overdraft, no negative balance, no recipient both refunded and sent', async () => {
    const user = await buildUser(t, { credits: INITIAL });
    const token = await loginToken(t.app, user.username);
    const accountId = await connectedAccount(t, token, kind === 'pglite' ? '919720000001' : '919720000002');

    const jobChats = new Map<string, string[]>();
    const codes = new Map<string, number>();
    const count = (what: string, status: number) =>
      codes.set(`${what} ${status}`, (codes.get(`${what} ${status}`) ?? 0) + 1);
    let serverErrors = 0;
    const serverErrorBodies: string[] = [];
    let k = 0;
    const send = async () => {
      const chats = chatsOf(k++);
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/session/${accountId}/sendIndividualMessage`,
        headers: bearer(token),
        payload: { chatIds: chats, content: 'Race' },
      });
      count('send', res.statusCode);
      if (res.statusCode >= 500) {
        serverErrors += 1;
        serverErrorBodies.push(`send: ${res.body}`);
      }
      if (res.statusCode !== 200) return null;
      const jobId = res.json().jobId as string;
      jobChats.set(jobId, chats);
      return jobId;
    };
    const retry = async (jobId: string) => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/message-jobs-details/${jobId}/retry`,
        headers: bearer(token),
        // Its failures are time-outs (delivery unknown): the user accepts a possible second copy.
        payload: { includeDeliveryUnknown: true },
      });
      count('retry', res.statusCode);
      if (res.statusCode >= 500) {
        serverErrors += 1;
        serverErrorBodies.push(`retry ${jobId}: ${res.body}`);
      }
    };
    const remove = async (jobId: string) => {
      const res = await t.app.inject({
        method: 'DELETE',
        url: `/api/message-jobs-details/${jobId}`,
        headers: bearer(token),
      });
      count('delete', res.statusCode);
      if (res.statusCode >= 500) {
        serverErrors += 1;
        serverErrorBodies.push(`delete ${jobId}: ${res.body}`);
      }
    };
    const jobStatus = async (jobId: string) =>
      (await t.db.select({ s: messageJobs.status }).from(messageJobs).where(eq(messageJobs.id, jobId)))[0]?.s;
    // A job the auto-pause stopped keeps its queued recipients charged until its owner resumes
    // or deletes it: deleting refunds them, so the accounting below covers those jobs too.
    let autoPaused = 0;
    const deletePaused = async (ids: string[]) => {
      for (const id of ids) {
        if ((await jobStatus(id)) !== 'paused') continue;
        autoPaused += 1;
        await remove(id);
      }
    };
    const ended = async (ids: string[]) => {
      for (const id of ids) {
        const s = await jobStatus(id);
        // 'paused': the auto-pause stopped a job whose last 20 outcomes were mostly failures
        // (retries of the same job retry only its numbers that time out).
        if (s !== undefined && s !== 'completed' && s !== 'failed' && s !== 'paused') return false;
      }
      return true;
    };

    // The balance, sampled all along.
    let sampling = true;
    let samples = 0;
    let negativeSamples = 0;
    const sampler = (async () => {
      while (sampling) {
        const [row] = await t.db.select({ c: users.credits }).from(users).where(eq(users.id, user.id));
        samples += 1;
        if (row!.c < 0) negativeSamples += 1;
        await sleep(10);
      }
    })();

    // Four jobs that end with failed recipients, to retry and delete later.
    const first = (await Promise.all([send(), send(), send(), send()])) as string[];
    await waitFor('first jobs to end', () => ended(first), 60_000, 50);

    // Round after round, all at once: more sends than the balance covers, retries of the same
    // job, retries racing deletes of the same job, deletes of jobs still sending.
    const rounds = 4;
    for (let round = 0; round < rounds; round++) {
      const ops: Array<Promise<unknown>> = [];
      for (let i = 0; i < 8; i++) {
        ops.push(
          send().then(async (id) => {
            if (id && i % 3 === 0) await remove(id);
          }),
        );
      }
      const live = [...jobChats.keys()];
      const target = live[round % live.length]!;
      const doomed = live[(round + 1) % live.length]!;
      for (let i = 0; i < 5; i++) ops.push(retry(target));
      for (let i = 0; i < 3; i++) ops.push(retry(doomed), remove(doomed));
      await Promise.all(ops);
    }
    await waitFor('every job to end', () => ended([...jobChats.keys()]), 120_000, 100);
    await deletePaused([...jobChats.keys()]);
    // A last pass: every job still there retried at once, twice over, then all ended.
    const remaining: string[] = [];
    for (const id of jobChats.keys()) if ((await jobStatus(id)) !== undefined) remaining.push(id);
    await Promise.all(remaining.flatMap((id) => [retry(id), retry(id)]));
    await waitFor('retried jobs to end', () => ended(remaining), 120_000, 100);
    await deletePaused(remaining);
    sampling = false;
    await sampler;

    const [{ c: balance }] = (await t.db
      .select({ c: users.credits })
      .from(users)
      .where(eq(users.id, user.id))) as [{ c: number }];
    const ledger = await t.db
      .select()
      .from(creditLedger)
      .where(eq(creditLedger.userId, user.id))
      .orderBy(asc(creditLedger.id));
    const overdrafts = ledger.filter((e) => e.balanceAfter < 0).length;
    let chainBreaks = 0;
    for (let i = 1; i < ledger.length; i++) {
      if (ledger[i]!.balanceAfter !== ledger[i - 1]!.balanceAfter + ledger[i]!.delta) chainBreaks += 1;
    }
    const gap = (await ledgerSum(t.db, user.id)) - balance;

    // Per job: credits charged (send and retries) = refunded + sent (from the outbox).
    const sentChats = new Map<string, number>();
    for (const m of readOutbox(outbox).lines) {
      const digits = m.chatId.replace(/@.*/, '');
      sentChats.set(digits, (sentChats.get(digits) ?? 0) + 1);
    }
    let refundedAndSent = 0;
    let neitherSentNorRefunded = 0;
    let statusMismatches = 0;
    let deleted = 0;
    let sentTotal = 0;
    for (const [jobId, chats] of jobChats) {
      const rows = ledger.filter((e) => e.jobId === jobId);
      const charged = -rows.filter((e) => e.delta < 0).reduce((n, e) => n + e.delta, 0);
      const refunded = rows.filter((e) => e.reason === 'refund').reduce((n, e) => n + e.delta, 0);
      const sent = chats.reduce((n, c) => n + (sentChats.get(c) ?? 0), 0);
      sentTotal += sent;
      if (sent + refunded > charged) refundedAndSent += sent + refunded - charged;
      if (sent + refunded < charged) neitherSentNorRefunded += charged - sent - refunded;
      const recipients = await t.db
        .select()
        .from(messageJobRecipients)
        .where(eq(messageJobRecipients.jobId, jobId));
      if (recipients.length === 0) {
        deleted += 1;
        continue;
      }
      // A job still there: its sent recipients are exactly the chats in the outbox.
      const sentRows = recipients.filter((r) => r.status === 'sent').length;
      if (sentRows !== sent) statusMismatches += 1;
    }
    const drift = INITIAL - balance - sentTotal;
    const status = (p: string) =>
      [...codes]
        .sort()
        .filter(([key]) => key.startsWith(p))
        .map(([key, n]) => `${key.split(' ')[1]}×${n}`)
        .join(' ');

    recordFigure(section, 'jobs accepted', jobChats.size);
    recordFigure(section, 'sends (answers)', status('send'));
    recordFigure(section, 'retries (answers)', status('retry'));
    recordFigure(section, 'deletes (answers)', status('delete'));
    recordFigure(section, 'jobs deleted', deleted);
    recordFigure(section, 'jobs auto-paused (then deleted)', autoPaused);
    recordFigure(section, 'messages sent', sentTotal);
    recordFigure(section, 'balance samples', samples);
    recordFigure(section, '5xx answers', serverErrors, true);
    recordFigure(section, 'overdrafts (ledger rows below 0)', overdrafts, true);
    recordFigure(section, 'negative balances seen', negativeSamples + (balance < 0 ? 1 : 0), true);
    recordFigure(section, 'recipients both refunded and sent', refundedAndSent, true);
    recordFigure(section, 'charged, neither sent nor refunded', neitherSentNorRefunded, true);
    recordFigure(section, 'jobs whose statuses ≠ outbox', statusMismatches, true);
    recordFigure(section, 'ledger chain breaks', chainBreaks, true);
    recordFigure(section, 'credit drift initial−final−sent', drift, true);
    recordFigure(section, 'ledger sum − balance', gap, true);

    expect(serverErrorBodies).toEqual([]);
    expect(serverErrors).toBe(0);
    expect(codes.get('send 402') ?? 0).toBeGreaterThan(0);
    expect(overdrafts).toBe(0);
    expect(negativeSamples).toBe(0);
    expect(refundedAndSent).toBe(0);
    expect(neitherSentNorRefunded).toBe(0);
    expect(statusMismatches).toBe(0);
    expect(chainBreaks).toBe(0);
    expect(drift).toBe(0);
    expect(gap).toBe(0);
  });
});
