import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, verifySignature } from '../fakes/webhook-receiver.ts';
import { bearer, buildUser, DB_KINDS, loginToken, testAppFor } from '../helpers.ts';

// 'Send test event' checks a receiver before a real event is owed.
describe.each(DB_KINDS)('webhook test event on %s', (kind) => {
  const t = testAppFor(kind, { ALLOW_PRIVATE_WEBHOOKS: 'true' });
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver([{ status: 200 }, { status: 503 }]);
  });
  afterAll(async () => {
    await receiver.close();
  });

  async function webhookOf(token: string, url: string) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers: bearer(token),
      payload: { url, events: ['job.finished'] },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().webhook as { id: string; secret: string };
  }

  it('calls the receiver once, signed, and answers how it went; queues nothing', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const hook = await webhookOf(token, `${receiver.url}/hook`);
    const test = () =>
      t.app.inject({ method: 'POST', url: `/api/webhooks/${hook.id}/test`, headers: bearer(token) });

    const first = await test();
    expect(first.statusCode).toBe(200);
    expect(first.json().attempt).toMatchObject({
      event: 'webhook.test',
      events: 1,
      ok: true,
      statusCode: 200,
      error: null,
    });
    expect(receiver.calls).toHaveLength(1);
    const call = receiver.calls[0]!;
    expect(call.path).toBe('/hook');
    expect(call.json).toMatchObject({ event: 'webhook.test', data: { webhookId: hook.id } });
    expect(verifySignature(hook.secret, call)).toBe(true);

    const second = await test();
    expect(second.json().attempt).toMatchObject({ ok: false, statusCode: 503, error: 'HTTP 503' });
    // Not a delivery: nothing owed, nothing in the attempts list.
    const attempts = await t.app.inject({
      method: 'GET',
      url: `/api/webhooks/${hook.id}/attempts`,
      headers: bearer(token),
    });
    expect(attempts.json().attempts).toEqual([]);
  });

  it("another user's webhook answers 404 and is not called", async () => {
    const owner = await buildUser(t);
    const hook = await webhookOf(await loginToken(t.app, owner.username), `${receiver.url}/other`);
    const stranger = await buildUser(t);
    const before = receiver.calls.length;
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/webhooks/${hook.id}/test`,
      headers: bearer(await loginToken(t.app, stranger.username)),
    });
    expect(res.statusCode).toBe(404);
    expect(receiver.calls).toHaveLength(before);
  });

  it('without a token answers 401', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/webhooks/whatever/test' });
    expect(res.statusCode).toBe(401);
  });
});
