import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { auditLog, webhookAttempts, webhookDeliveries, webhooks } from '../../src/db/schema.ts';
import { WebhookDeliverer } from '../../src/webhooks/deliverer.ts';
import { queueWebhookEvents, type WebhookPayloads } from '../../src/webhooks/service.ts';
import { startReceiver, verifySignature } from '../fakes/webhook-receiver.ts';
import { bearer, buildUser, createTestApp, DB_KINDS, loginToken, type TestApp } from '../helpers.ts';
import { waitFor } from '../wait.ts';

const jobFinished = (jobId: string): WebhookPayloads['job.finished'] => ({
  jobId,
  sessionId: '919800000001_abc',
  status: 'completed',
  total: 3,
  sent: 3,
  failed: 0,
  cancelled: 0,
  finishedAt: '2026-11-23T04:00:00.000Z',
});

describe.each(DB_KINDS)('webhook deliveries on %s', (kind) => {
  let t: TestApp;
  let deliverer: WebhookDeliverer | null = null;
  beforeAll(async () => {
    // With a key, as every real start has one: the secret is stored encrypted and deliveries decrypt it.
    t = await createTestApp(kind, { ALLOW_PRIVATE_WEBHOOKS: 'true', SECRET_KEY: 'ab'.repeat(32) });
  });
  afterEach(async () => {
    await deliverer?.stop();
    deliverer = null;
  });
  afterAll(() => t.close());

  const startDeliverer = (timeoutMs = 5000) => {
    deliverer = new WebhookDeliverer(t.ctx, { pollMs: 50, retryBaseMs: 100, timeoutMs }).start();
    return deliverer;
  };

  async function hook(receiverUrl: string, events: string[] = ['job.finished', 'message.status']) {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: bearer(token),
      payload: { url: `${receiverUrl}/hook`, events },
    });
    expect(res.statusCode, res.body).toBe(200);
    return {
      user,
      token,
      webhook: res.json().webhook as { id: string; url: string; events: string[]; secret: string },
    };
  }

  const deliveriesOf = (webhookId: string) =>
    t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId));

  it('creates, lists (without the secret), signs every call, and deletes; each change is in the audit log', async () => {
    const receiver = await startReceiver();
    try {
      const { user, token, webhook } = await hook(receiver.url);
      expect(webhook).toEqual({
        id: expect.any(String),
        url: `${receiver.url}/hook`,
        events: ['job.finished', 'message.status'],
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{32}$/),
      });
      const list = await t.app.inject({ method: 'GET', url: '/api/webhooks', headers: bearer(token) });
      expect(list.json().webhooks).toEqual([
        { id: webhook.id, url: webhook.url, events: webhook.events, createdAt: expect.any(String) },
      ]);
      expect(list.body).not.toContain(webhook.secret);
      const [stored] = await t.db.select().from(webhooks).where(eq(webhooks.id, webhook.id));
      expect(stored!.secret).toMatch(/^enc1:/);
      expect(stored!.secret).not.toContain(webhook.secret.slice(6));

      await queueWebhookEvents(t.db, user.id, 'job.finished', [jobFinished('job-1')]);
      await queueWebhookEvents(t.db, user.id, 'session.status', [
        { sessionId: 's', status: 'CONNECTED', reason: null, at: '2026-11-23T04:00:00.000Z' },
      ]);
      startDeliverer();
      const [call] = await waitFor('one call', async () =>
        receiver.calls.length === 1 ? receiver.calls : null,
      );
      expect(call!.path).toBe('/hook');
      expect(call!.headers['content-type']).toBe('application/json');
      expect(call!.headers['x-webhook-id']).toMatch(/^whd_\d+$/);
      expect(Math.abs(Number(call!.headers['x-webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      expect(verifySignature(webhook.secret, call!)).toBe(true);
      expect(verifySignature(`${webhook.secret}x`, call!)).toBe(false);
      expect(call!.json).toEqual({
        id: call!.headers['x-webhook-id'],
        event: 'job.finished',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        data: jobFinished('job-1'),
      });
      // not subscribed to account.status: nothing owed
      expect((await deliveriesOf(webhook.id)).map((d) => d.event)).toEqual(['job.finished']);
      await waitFor('delivered', async () => (await deliveriesOf(webhook.id))[0]?.status === 'delivered');

      const other = await buildUser(t);
      const otherToken = await loginToken(t.app, other.username);
      for (const [method, url] of [
        ['DELETE', `/api/webhooks/${webhook.id}`],
        ['GET', `/api/webhooks/${webhook.id}/attempts`],
      ] as const) {
        const res = await t.app.inject({ method, url, headers: bearer(otherToken) });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ success: false, message: 'Webhook not found' });
      }
      const del = await t.app.inject({
        method: 'DELETE',
        url: `/api/webhooks/${webhook.id}`,
        headers: bearer(token),
      });
      expect(del.json()).toEqual({ success: true, message: 'Webhook deleted' });
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/webhooks', headers: bearer(token) })).json().webhooks,
      ).toEqual([]);
      const audit = await t.db
        .select()
        .from(auditLog)
        .where(eq(auditLog.targetUserId, user.id))
        .orderBy(auditLog.id);
      expect(
        audit
          .filter((a) => a.action.startsWith('webhook.'))
          .map((a) => [a.action, a.actor, a.details?.webhookId]),
      ).toEqual([
        ['webhook.create', user.username, webhook.id],
        ['webhook.delete', user.username, webhook.id],
      ]);
      expect(audit.every((a) => a.ip === '127.0.0.1')).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('a receiver that fails twice then succeeds gets the event until it acknowledges it, then no more', async () => {
    const receiver = await startReceiver([{ status: 500 }, { status: 503 }, { status: 204 }]);
    try {
      const { user, token, webhook } = await hook(receiver.url);
      await queueWebhookEvents(t.db, user.id, 'job.finished', [jobFinished('job-2')]);
      startDeliverer();
      const [row] = await waitFor('delivered', async () => {
        const rows = await deliveriesOf(webhook.id);
        return rows[0]?.status === 'delivered' ? rows : null;
      });
      expect(row!.attempts).toBe(3);
      expect(receiver.calls).toHaveLength(3);
      expect(new Set(receiver.calls.map((c) => c.headers['x-webhook-id'])).size).toBe(1);
      expect(new Set(receiver.calls.map((c) => c.body)).size).toBe(1);
      expect(receiver.calls.every((c) => verifySignature(webhook.secret, c))).toBe(true);

      const attempts = await t.app.inject({
        method: 'GET',
        url: `/api/webhooks/${webhook.id}/attempts`,
        headers: bearer(token),
      });
      expect(
        attempts
          .json()
          .attempts.map((a: { ok: boolean; statusCode: number; error: string | null }) => [
            a.ok,
            a.statusCode,
            a.error,
          ]),
      ).toEqual([
        [true, 204, null],
        [false, 503, 'HTTP 503'],
        [false, 500, 'HTTP 500'],
      ]);
      // Acknowledged: a later round of the deliverer finds nothing due for it.
      await deliverer!.pump();
      expect(receiver.calls).toHaveLength(3);
      const [due] = await queryRows<{ n: number }>(
        t.db,
        sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = ${webhook.id} AND status = 'pending'`,
      );
      expect(due!.n).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it('sends message.status in batches of up to 100, each status once with its own id', async () => {
    const receiver = await startReceiver();
    try {
      const { user, webhook } = await hook(receiver.url, ['message.status']);
      const statuses: WebhookPayloads['message.status'][] = Array.from({ length: 250 }, (_, i) => ({
        jobId: 'job-3',
        recipientId: String(i + 1),
        chatId: `9198000${String(i).padStart(5, '0')}@s.whatsapp.net`,
        status: 'sent',
        error: null,
        at: '2026-11-23T04:00:00.000Z',
      }));
      await queueWebhookEvents(t.db, user.id, 'message.status', statuses);
      await queueWebhookEvents(t.db, user.id, 'job.finished', [jobFinished('job-3')]);
      startDeliverer();
      await waitFor('all delivered', async () =>
        (await deliveriesOf(webhook.id)).every((d) => d.status === 'delivered') ? true : null,
      );
      expect(receiver.calls.map((c) => c.json.data.length).sort((a, b) => b - a)).toEqual([100, 100, 50]);
      expect(
        receiver.calls.every((c) => c.json.event === 'message.status' && verifySignature(webhook.secret, c)),
      ).toBe(true);
      const received = receiver.calls.flatMap((c) => c.json.data as { id: string; recipientId: string }[]);
      expect(new Set(received.map((s) => s.id)).size).toBe(250);
      expect(received.map((s) => Number(s.recipientId)).sort((a, b) => a - b)).toEqual(
        statuses.map((s) => Number(s.recipientId)),
      );
      expect(received[0]).toMatchObject({
        jobId: 'job-3',
        chatId: expect.stringMatching(/@s\.whatsapp\.net$/),
        status: 'sent',
      });
    } finally {
      await receiver.close();
    }
  });

  it('does not follow redirects and gives up on a receiver that does not answer within the timeout', async () => {
    const receiver = await startReceiver([{ status: 302, headers: { location: '/elsewhere' } }, 'hang']);
    try {
      const { user, token, webhook } = await hook(receiver.url);
      await queueWebhookEvents(t.db, user.id, 'job.finished', [jobFinished('job-4')]);
      startDeliverer(300);
      await waitFor('two calls recorded', async () => {
        const res = await t.app.inject({
          method: 'GET',
          url: `/api/webhooks/${webhook.id}/attempts`,
          headers: bearer(token),
        });
        return res.json().attempts.length >= 2 ? true : null;
      });
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/webhooks/${webhook.id}/attempts`,
        headers: bearer(token),
      });
      const [second, first] = res.json().attempts;
      expect(first).toMatchObject({
        ok: false,
        statusCode: 302,
        error: 'HTTP 302: redirects are not followed',
      });
      expect(second).toMatchObject({ ok: false, statusCode: null, error: 'no answer within 0.3 s' });
      expect(receiver.calls.map((c) => c.path).slice(0, 2)).toEqual(['/hook', '/hook']);
    } finally {
      await receiver.close();
    }
  });

  it('gives up on an event still failing 24 hours after it happened, and keeps the last 50 attempts', async () => {
    const receiver = await startReceiver(Array.from({ length: 1 }, () => ({ status: 500 })));
    try {
      const { user, token, webhook } = await hook(receiver.url);
      await queueWebhookEvents(t.db, user.id, 'job.finished', [jobFinished('old')]);
      await t.db.execute(
        sql`UPDATE webhook_deliveries SET created_at = now() - interval '25 hours' WHERE webhook_id = ${webhook.id}`,
      );
      const before =
        (await t.ctx.metrics.webhookDeliveries.get()).values.find((v) => v.labels.result === 'gave_up')
          ?.value ?? 0;
      startDeliverer();
      const [row] = await waitFor('failed for good', async () => {
        const rows = await deliveriesOf(webhook.id);
        return rows[0]?.status === 'failed' ? rows : null;
      });
      expect(row).toMatchObject({ attempts: 1, lastError: 'HTTP 500' });
      const after = (await t.ctx.metrics.webhookDeliveries.get()).values.find(
        (v) => v.labels.result === 'gave_up',
      )?.value;
      expect(after).toBe(before + 1);

      await queueWebhookEvents(
        t.db,
        user.id,
        'job.finished',
        Array.from({ length: 60 }, (_, i) => jobFinished(`job-${i}`)),
      );
      await waitFor('60 more delivered', async () =>
        (await deliveriesOf(webhook.id)).filter((d) => d.status === 'delivered').length === 60 ? true : null,
      );
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/webhooks/${webhook.id}/attempts`,
        headers: bearer(token),
      });
      expect(res.json().attempts).toHaveLength(50);
      expect(res.json().attempts.every((a: { ok: boolean }) => a.ok)).toBe(true);
      const kept = await t.db.select().from(webhookAttempts).where(eq(webhookAttempts.webhookId, webhook.id));
      expect(kept).toHaveLength(50);
    } finally {
      await receiver.close();
    }
  });

  it('refuses to call a private address at delivery time once private webhooks are no longer allowed', async () => {
    const receiver = await startReceiver();
    const strict = await createTestApp(kind);
    try {
      const user = await buildUser(strict);
      // A webhook saved while private addresses were allowed.
      await strict.db.execute(sql`INSERT INTO webhooks (id, user_id, url, events, secret)
        VALUES ('wh-private', ${user.id}, ${`${receiver.url}/hook`}, ARRAY['job.finished'], 'whsec_x')`);
      await queueWebhookEvents(strict.db, user.id, 'job.finished', [jobFinished('job-5')]);
      const strictDeliverer = new WebhookDeliverer(strict.ctx, { pollMs: 50, retryBaseMs: 100 }).start();
      try {
        const [attempt] = await waitFor('an attempt', async () => {
          const rows = await strict.db.select().from(webhookAttempts);
          return rows.length > 0 ? rows : null;
        });
        expect(attempt).toMatchObject({ ok: false, error: 'Webhook URL must be a public address' });
      } finally {
        await strictDeliverer.stop();
      }
      expect(receiver.calls).toHaveLength(0);
    } finally {
      await strict.close();
      await receiver.close();
    }
  });

  it('forgets finished deliveries after a week and keeps what is still owed', async () => {
    const receiver = await startReceiver();
    try {
      const { user, webhook } = await hook(receiver.url);
      await queueWebhookEvents(t.db, user.id, 'job.finished', [
        jobFinished('a'),
        jobFinished('b'),
        jobFinished('c'),
      ]);
      const ids = (await deliveriesOf(webhook.id)).map((d) => d.id).sort((a, b) => a - b);
      await t.db.execute(sql`UPDATE webhook_deliveries SET status = 'delivered' WHERE id = ${ids[0]!}`);
      await t.db.execute(sql`UPDATE webhook_deliveries SET status = 'failed' WHERE id = ${ids[1]!}`);
      await t.db.execute(
        sql`UPDATE webhook_deliveries SET created_at = now() - interval '8 days' WHERE webhook_id = ${webhook.id}`,
      );
      const pruner = new WebhookDeliverer(t.ctx);
      expect(await pruner.prune()).toBeGreaterThanOrEqual(2);
      const left = await deliveriesOf(webhook.id);
      expect(left.map((d) => [d.id, d.status])).toEqual([[ids[2], 'pending']]);
    } finally {
      await receiver.close();
    }
  });
});
