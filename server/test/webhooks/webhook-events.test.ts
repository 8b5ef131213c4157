import { describe, expect, it } from 'vitest';
import { waitForJobEnd } from '../fakes/messaging.ts';
import { verifySignature, webhookEngine } from '../fakes/webhook-receiver.ts';
import { bearer, DB_KINDS } from '../helpers.ts';
import { waitFor } from '../wait.ts';

/**
 * Events come from the real engine: the account runner (account.status), the dispatcher
 * (message.status sent / failed, job.finished) and the simulator's receipts (delivered, read).
 */
describe.each(DB_KINDS)('webhook events from the engine on %s', (kind) => {
  const { t, receiver, subscriber } = webhookEngine(kind);

  it('tells the receiver of the session, each recipient and the finished job, signed', async () => {
    const { token, webhook, accountId, groups } = await subscriber(
      ['job.finished', 'message.status', 'session.status'],
      '919700000001',
    );
    const { secret } = webhook;
    const announce = groups.find((g) => g.announce && !g.isAdmin)!;
    const open = groups.filter((g) => !g.announce).slice(0, 3);
    const send = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendBulkMessage`,
      headers: bearer(token),
      payload: {
        chatIds: [...open.map((g) => g.groupId), announce.groupId],
        type: 'string',
        content: 'Hello',
      },
    });
    const jobId = send.json().jobId as string;
    const job = await waitForJobEnd(t.app, token, jobId);
    expect(job.results).toMatchObject({ success: 3, failed: 1 });

    const events = () =>
      receiver.calls.flatMap((c) =>
        Array.isArray(c.json.data)
          ? c.json.data.map((d: object) => ({ event: c.json.event, ...d }))
          : [{ event: c.json.event, ...c.json.data }],
      );
    const finished = await waitFor(
      'job.finished',
      async () => events().find((e) => e.event === 'job.finished') ?? null,
    );
    expect(finished).toEqual({
      event: 'job.finished',
      jobId,
      sessionId: accountId,
      status: 'failed',
      total: 4,
      sent: 3,
      failed: 1,
      cancelled: 0,
      finishedAt: expect.stringMatching(/Z$/),
    });
    await waitFor('every outcome', async () =>
      events().filter((e) => e.event === 'message.status' && ['sent', 'failed'].includes(e.status)).length ===
      4
        ? true
        : null,
    );
    const outcomes = events().filter(
      (e) => e.event === 'message.status' && ['sent', 'failed'].includes(e.status),
    );
    expect(
      outcomes
        .filter((e) => e.status === 'sent')
        .map((e) => e.chatId)
        .sort(),
    ).toEqual(open.map((g) => g.groupId).sort());
    expect(outcomes.find((e) => e.status === 'failed')).toMatchObject({
      jobId,
      chatId: announce.groupId,
      error: expect.stringMatching(/admins/i),
      id: expect.stringMatching(/^whd_\d+$/),
    });
    expect(
      events().some(
        (e) => e.event === 'session.status' && e.sessionId === accountId && e.status === 'CONNECTED',
      ),
    ).toBe(true);
    expect(receiver.calls.every((c) => verifySignature(secret, c))).toBe(true);

    // The same sends in this process's Prometheus counters.
    const outcome = async (name: string) =>
      (await t.ctx.metrics.messages.get()).values.find((v) => v.labels.outcome === name)?.value;
    expect(await outcome('sent')).toBe(3);
    expect(await outcome('failed')).toBe(1);
    const sends = (await t.ctx.metrics.sendDuration.get()).values.find(
      (v) => v.metricName === 'wa_send_duration_seconds_count',
    );
    expect(sends?.value).toBe(4);
    // Each acknowledged call is counted once its outcome is recorded (just after the answer).
    await waitFor('webhook calls counted', async () => {
      const delivered = (await t.ctx.metrics.webhookDeliveries.get()).values.find(
        (v) => v.labels.result === 'delivered',
      );
      return delivered?.value === receiver.calls.length ? true : null;
    });
  });
});
