import { describe, expect, it } from 'vitest';
import { balanceOf, jobDetails, jobRow, recipientsOf, waitForJobEnd } from '../fakes/messaging.ts';
import { appWithEngine, bearer, buildUser, DB_KINDS, linkedAccount, loginToken } from '../helpers.ts';
import { waitFor } from '../wait.ts';

const numbers = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `9198${20_001_001 + from + i}`);
/** Numbers ending in 0000 are not on the simulated WhatsApp: they fail 'Not on WhatsApp'. */
const unknownNumbers = (n: number) =>
  Array.from({ length: n }, (_, i) => `91970${String(i + 1).padStart(3, '0')}0000`);

describe.each(DB_KINDS)('pausing and resuming a job on %s', (kind) => {
  const users = new Set<string>();
  // A pause between messages, so that a job is still running when the test pauses it.
  const { t } = appWithEngine(
    kind,
    { SEND_DELAY_MIN_MS: '120', SEND_DELAY_MAX_MS: '120', SIMULATOR_LINK_AFTER_MS: '3600000' },
    users,
  );

  const owner = (credits: number, phone: string) => linkedAccount(t, { credits, phone, track: users });

  const post = (token: string, url: string, payload?: unknown) =>
    t.app.inject({ method: 'POST', url, headers: bearer(token), ...(payload ? { payload } : {}) });
  const details = (token: string, jobId: string) => jobDetails(t.app, token, jobId);
  /**
   * A one-message job on the same account, sent and ended: the account's loop claimed after the
   * pause. It claims the earliest due recipient first and sends one message at a time, so a held
   * job's recipients, due before this one, would have gone first, and a send in flight at the
   * pause has been recorded. `at`: its schedule time.
   */
  const probe = async (token: string, accountId: string, phone: string, at?: Date) => {
    const res = await post(token, `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: [phone],
      content: 'After the pause',
      ...(at ? { scheduleTime: at.toISOString() } : {}),
    });
    const job = await waitForJobEnd(t.app, token, res.json().jobId as string);
    expect(job).toMatchObject({ status: 'completed', results: { success: 1 } });
    return res.json().jobId as string;
  };

  it('stops a running job, sends nothing after the answer, and resumes where it stopped', async () => {
    const { user, token, accountId } = await owner(41, '919700002001');
    const sent = await post(token, `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: numbers(30),
      content: 'Paused half way',
    });
    const jobId = sent.json().jobId as string;
    await waitFor('a few sends', async () => ((await jobRow(t.db, jobId))?.sentCount ?? 0) >= 3);

    const paused = await post(token, `/api/message-jobs-details/${jobId}/pause`);
    expect(paused.statusCode).toBe(200);
    expect(paused.json()).toEqual({ success: true, message: 'Job paused' });
    const acknowledged = new Date();
    const atPause = await jobRow(t.db, jobId);
    expect(atPause!.status).toBe('paused');

    const after = await probe(token, accountId, numbers(1, 900)[0]!);
    const held = await details(token, jobId);
    expect(held.status).toBe('paused');
    expect(held.results.success).toBe(atPause!.sentCount);
    const rows = await recipientsOf(t.db, jobId);
    expect(rows.filter((r) => r.sentAt && r.sentAt > acknowledged)).toEqual([]);
    expect(rows.filter((r) => r.status === 'queued')).toHaveLength(30 - atPause!.sentCount);
    // Credits stay reserved for what waits.
    expect(await balanceOf(t.db, user.id)).toBe(10);

    // Listed under All and Active (All has the probe too).
    for (const status of ['all', 'active', 'paused']) {
      const list = await t.app.inject({
        method: 'GET',
        url: `/api/message-jobs/${user.id}?status=${status}`,
        headers: bearer(token),
      });
      expect(list.json().jobs.map((j: { id: string; status: string }) => [j.id, j.status])).toEqual([
        ...(status === 'all' ? [[after, 'completed']] : []),
        [jobId, 'paused'],
      ]);
      expect(list.json().summary.byStatus.paused).toBe(1);
    }

    const again = await post(token, `/api/message-jobs-details/${jobId}/pause`);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({
      success: false,
      message: 'Only a running or scheduled job can be paused',
    });

    // Only the owner, another user sees no such job.
    const other = await buildUser(t);
    const otherToken = await loginToken(t.app, other.username);
    for (const action of ['pause', 'resume']) {
      const refused = await post(otherToken, `/api/message-jobs-details/${jobId}/${action}`);
      expect(refused.statusCode).toBe(404);
      expect(refused.json().message).toBe('Job not found');
    }

    const resumed = await post(token, `/api/message-jobs-details/${jobId}/resume`);
    expect(resumed.json()).toEqual({ success: true, message: 'Job resumed' });
    const job = await waitForJobEnd(t.app, token, jobId, 30_000);
    expect(job).toMatchObject({
      status: 'completed',
      statusReason: null,
      results: { success: 30, failed: 0 },
    });
    const notPaused = await post(token, `/api/message-jobs-details/${jobId}/resume`);
    expect(notPaused.statusCode).toBe(400);
    expect(notPaused.json().message).toBe('Only a paused job can be resumed');
    expect(await balanceOf(t.db, user.id)).toBe(10);
  });

  it('refunds what a paused job still holds when it is deleted', async () => {
    const { user, token, accountId } = await owner(20, '919700002002');
    const sent = await post(token, `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: numbers(20, 100),
      content: 'Deleted while paused',
    });
    const jobId = sent.json().jobId as string;
    await waitFor('a send', async () => ((await jobRow(t.db, jobId))?.sentCount ?? 0) >= 1);
    expect((await post(token, `/api/message-jobs-details/${jobId}/pause`)).statusCode).toBe(200);
    const sentBefore = (await jobRow(t.db, jobId))!.sentCount;
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/message-jobs-details/${jobId}`,
      headers: bearer(token),
    });
    expect(deleted.json()).toEqual({ success: true, message: 'Job deleted successfully' });
    expect(await balanceOf(t.db, user.id)).toBe(20 - sentBefore);
  });

  it('keeps a paused scheduled job from starting at its time, and resumes it as scheduled', async () => {
    const { token, accountId } = await owner(6, '919700002003');
    const at = new Date(Date.now() + 2000);
    const sent = await post(token, `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: numbers(3, 200),
      content: 'Scheduled then paused',
      scheduleTime: at.toISOString(),
    });
    const jobId = sent.json().jobId as string;
    expect((await post(token, `/api/message-jobs-details/${jobId}/pause`)).json().message).toBe('Job paused');
    // A job scheduled just after it has been sent: its time has passed.
    await probe(token, accountId, numbers(1, 901)[0]!, new Date(at.getTime() + 1));
    expect(await details(token, jobId)).toMatchObject({ status: 'paused', results: { success: 0 } });
    await post(token, `/api/message-jobs-details/${jobId}/resume`);
    const job = await waitForJobEnd(t.app, token, jobId);
    expect(job.results.success).toBe(3);
  });

  it('pauses a job by itself when more than half of its last 20 messages failed', async () => {
    const { user, token, accountId } = await owner(31, '919700002004');
    // 8 good numbers, then 12 not on WhatsApp, then 10 more good ones.
    const chatIds = [...numbers(8, 300), ...unknownNumbers(12), ...numbers(10, 400)];
    const sent = await post(token, `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds,
      content: 'A broken list',
    });
    const jobId = sent.json().jobId as string;
    const job = await waitFor('the auto-pause', async () => {
      const j = await details(token, jobId);
      return j.status === 'paused' ? j : null;
    });
    expect(job.statusReason).toBe('Paused: 12 of the last 20 messages failed');
    expect(job.results).toMatchObject({ success: 8, failed: 12 });
    await probe(token, accountId, numbers(1, 902)[0]!);
    expect((await details(token, jobId)).results).toMatchObject({ success: 8, failed: 12 });
    // 12 failures refunded, 10 still reserved.
    expect(await balanceOf(t.db, user.id)).toBe(12);

    await post(token, `/api/message-jobs-details/${jobId}/resume`);
    const done = await waitForJobEnd(t.app, token, jobId, 30_000);
    expect(done).toMatchObject({
      status: 'failed',
      statusReason: null,
      results: { success: 18, failed: 12 },
    });
  });

  it('does not pause a job whose failures are fewer than 20 outcomes', async () => {
    const { token, accountId } = await owner(15, '919700002005');
    const sent = await post(token, `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: unknownNumbers(15).map((n) => n.replace('91970', '91971')),
      content: 'Short and broken',
    });
    const job = await waitForJobEnd(t.app, token, sent.json().jobId as string);
    expect(job).toMatchObject({ status: 'failed', statusReason: null, results: { success: 0, failed: 15 } });
  });
});
