import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { ledgerSum } from '../../src/credits/credits.ts';
import { media, messageJobRecipients, messageJobs, users } from '../../src/db/schema.ts';
import { TIMEOUT_PREFIX } from '../../src/transport/simulator/numbers.ts';
import { connectedAccount } from '../fakes/accounts.ts';
import { appWithEngine, bearer, buildAdmin, buildUser, DB_KINDS, loginToken } from '../helpers.ts';
import { waitFor } from '../wait.ts';
import { recordFigure } from './support/figures.ts';
import { readOutbox } from './support/server-process.ts';

/** A job's life cut short by its owner (delete, terminate) while the engine sends. */
describe.each(DB_KINDS)('jobs cut short (%s)', (kind) => {
  const section = `jobs cut short (${kind})`;
  const outbox = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wa-lifecycle-')), 'outbox.jsonl');
  // Registered first, so run last (after hooks run the other way round): once the engine stopped.
  afterAll(() => fs.rmSync(path.dirname(outbox), { recursive: true, force: true }));
  const { t } = appWithEngine(kind, {
    SIMULATOR_OUTBOX_FILE: outbox,
    SIMULATOR_SEND_LATENCY_MS: '20',
    SESSION_WAIT_MS: '5000',
  });

  const balance = async (userId: string) =>
    (await t.db.select({ c: users.credits }).from(users).where(eq(users.id, userId)))[0]!.c;
  const statuses = async (jobId: string) =>
    (await t.db
      .select({ s: messageJobRecipients.status, n: sql<number>`count(*)::int` })
      .from(messageJobRecipients)
      .where(eq(messageJobRecipients.jobId, jobId))
      .groupBy(messageJobRecipients.status)) as Array<{ s: string; n: number }>;
  const count = (rows: Array<{ s: string; n: number }>, s: string) => rows.find((r) => r.s === s)?.n ?? 0;
  const chats = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => `${prefix}${String(i + 1).padStart(4, '0')}`);

  it('deleting a job while another job sends the same file: the other job sends every copy', async () => {
    const user = await buildUser(t, { credits: 1000 });
    const token = await loginToken(t.app, user.username);
    const accountId = await connectedAccount(t, token, kind === 'pglite' ? '919730000001' : '919730000002');
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    const file = { type: 'media', content: 'same file', mime: 'image/png', data: png.toString('base64') };
    const send = async (prefix: string) => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/session/${accountId}/sendIndividualMessage`,
        headers: bearer(token),
        payload: { ...file, chatIds: chats(prefix, 40) },
      });
      expect(res.statusCode).toBe(200);
      return res.json().jobId as string;
    };
    const doomed = await send('9174100');
    const kept = await send('9174200');
    await waitFor(
      'the first sends of the doomed job',
      async () => count(await statuses(doomed), 'sent') > 0,
      30_000,
      20,
    );
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/message-jobs-details/${doomed}`,
      headers: bearer(token),
    });
    expect(del.statusCode).toBe(200);
    const [job] = await t.db
      .select({ mediaId: messageJobs.mediaId })
      .from(messageJobs)
      .where(eq(messageJobs.id, kept));
    const stored = await t.db.select({ id: media.id }).from(media).where(eq(media.id, job!.mediaId!));
    await waitFor(
      'the kept job to end',
      async () => {
        const rows = await statuses(kept);
        return count(rows, 'queued') + count(rows, 'sending') === 0;
      },
      60_000,
    );
    const keptRows = await statuses(kept);
    const sentOfKept = readOutbox(outbox).lines.filter((l) => l.chatId.includes('9174200'));
    recordFigure(section, 'shared file: media row kept while another job uses it', stored.length);
    recordFigure(
      section,
      'shared file: kept job sent / failed',
      `${count(keptRows, 'sent')} / ${count(keptRows, 'failed')}`,
    );
    recordFigure(
      section,
      'shared file: ledger minus balance',
      (await ledgerSum(t.db, user.id)) - (await balance(user.id)),
      true,
    );
    expect(stored).toHaveLength(1);
    expect(count(keptRows, 'sent')).toBe(40);
    expect(new Set(sentOfKept.map((l) => l.chatId)).size).toBe(40);
    expect(await ledgerSum(t.db, user.id)).toBe(await balance(user.id));
  });

  it('terminating the session while a retry is queued: every recipient ends, refunds exact', async () => {
    const user = await buildUser(t, { credits: 1000 });
    const token = await loginToken(t.app, user.username);
    const accountId = await connectedAccount(t, token, kind === 'pglite' ? '919730000011' : '919730000012');
    // Numbers starting TIMEOUT_PREFIX time out in the simulator: they fail, are refunded, and a
    // retry may fix them ('Not on WhatsApp' is no longer retried). They go first, so
    // that the job's last 20 outcomes (the first pass's, then the retry's) are never mostly
    // failures: the auto-pause would hold the retry instead.
    const list = [
      ...Array.from({ length: 10 }, (_, i) => `${TIMEOUT_PREFIX}75${String(i).padStart(4, '1')}`),
      ...chats('9175100', 30),
    ];
    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(token),
      payload: { chatIds: list, content: 'retry me' },
    });
    const jobId = sent.json().jobId as string;
    await waitFor(
      'the first pass to end',
      async () => {
        const rows = await statuses(jobId);
        return count(rows, 'queued') + count(rows, 'sending') === 0;
      },
      60_000,
    );
    const retry = await t.app.inject({
      method: 'POST',
      url: `/api/message-jobs-details/${jobId}/retry`,
      headers: bearer(token),
      // Its failures are time-outs (delivery unknown): the user accepts a possible second copy.
      payload: { includeDeliveryUnknown: true },
    });
    expect(retry.statusCode).toBe(200);
    const terminated = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/terminate`,
      headers: bearer(token),
    });
    expect(terminated.statusCode).toBeLessThan(500);
    const terminatedAt = Date.now();
    const settled = await waitFor(
      'every recipient to end after the terminate',
      async () => {
        const rows = await statuses(jobId);
        return count(rows, 'queued') + count(rows, 'sending') === 0 ? rows : null;
      },
      30_000,
      200,
    ).catch(() => null);
    const rows = settled ?? (await statuses(jobId));
    // Recipients of a deleted account wait SESSION_WAIT_MS (5 s here, 10 min by default) like a disconnected one.
    recordFigure(
      section,
      'terminate during retry: seconds until every recipient ended (SESSION_WAIT_MS 5 s)',
      settled ? Math.round((Date.now() - terminatedAt) / 100) / 10 : 'never',
    );
    const stuck = count(rows, 'queued') + count(rows, 'sending');
    const charged = 1000 - (await balance(user.id));
    recordFigure(section, 'terminate during retry: recipients left queued or sending', stuck, true);
    recordFigure(
      section,
      'terminate during retry: sent / failed / cancelled',
      `${count(rows, 'sent')} / ${count(rows, 'failed')} / ${count(rows, 'cancelled')}`,
    );
    recordFigure(
      section,
      'terminate during retry: credits charged minus sent',
      charged - count(rows, 'sent'),
      true,
    );
    recordFigure(
      section,
      'terminate during retry: ledger minus balance',
      (await ledgerSum(t.db, user.id)) - (await balance(user.id)),
      true,
    );
    expect(stuck).toBe(0);
    expect(charged).toBe(count(rows, 'sent'));
    expect(await ledgerSum(t.db, user.id)).toBe(await balance(user.id));
  });

  it('disabling the user mid-job: no send after the answer, refunds exact', async () => {
    const admin = await buildAdmin(t);
    const adminToken = await loginToken(t.app, admin.username);
    const user = await buildUser(t, { credits: 1000, managedBy: admin.id });
    const token = await loginToken(t.app, user.username);
    const accountId = await connectedAccount(t, token, kind === 'pglite' ? '919730000021' : '919730000022');
    const list = chats('9177100', 100);
    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(token),
      payload: { chatIds: list, content: 'disable me' },
    });
    const jobId = sent.json().jobId as string;
    await waitFor('the first sends', async () => count(await statuses(jobId), 'sent') >= 10, 30_000, 20);
    const disabled = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/users/${user.id}`,
      headers: bearer(adminToken),
      payload: { disabled: true },
    });
    expect(disabled.statusCode).toBe(200);
    // A send already handed over when the answer went out may finish within one send latency.
    const answeredAt = Date.now() + 20 + 50;
    const rows = await waitFor(
      'every recipient to end',
      async () => {
        const r = await statuses(jobId);
        return count(r, 'queued') + count(r, 'sending') === 0 ? r : null;
      },
      30_000,
      50,
    );
    await new Promise((r) => setTimeout(r, 500));
    const after = readOutbox(outbox).lines.filter(
      (l) => l.chatId.startsWith('9177100') && Date.parse(l.sentAt) > answeredAt,
    ).length;
    const charged = 1000 - (await balance(user.id));
    recordFigure(
      section,
      'disable mid-job: sent / failed before everything ended',
      `${count(rows, 'sent')} / ${count(rows, 'failed')}`,
    );
    recordFigure(section, 'disable mid-job: sends after the answer', after, true);
    recordFigure(section, 'disable mid-job: credits charged minus sent', charged - count(rows, 'sent'), true);
    recordFigure(
      section,
      'disable mid-job: ledger minus balance',
      (await ledgerSum(t.db, user.id)) - (await balance(user.id)),
      true,
    );
    expect(after).toBe(0);
    expect(charged).toBe(count(rows, 'sent'));
    expect(await ledgerSum(t.db, user.id)).toBe(await balance(user.id));
  });
});
