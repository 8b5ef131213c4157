import type { AddressInfo } from 'node:net';
import { SPREAD_TEXTS } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, startEngine } from '../src/engine.ts';
import { failWhere } from '../src/messaging/engine/transitions.ts';
import { JOB_MESSAGES } from '../src/messaging/messages.ts';
import { connectCloudAccount } from './fakes/cloud-account.ts';
import { type FakeGraphApi, startFakeGraphApi } from './fakes/graph-api.ts';
import { balanceOf, expectLedgerMatches, recipientsOf, waitForJobEnd } from './fakes/messaging.ts';
import { connectedInstance } from './fakes/sessions.ts';
import {
  account,
  bearer,
  buildAdmin,
  createTestApp,
  DB_KINDS,
  loginToken,
  OPEN_POLICY,
  type TestApp,
} from './helpers.ts';

/**
 * One job over both kinds (issue 30): with `coldToCloud` the numbers a linked phone of the job has
 * messaged before go through that phone and the 'cold' ones through the Cloud API account; a
 * template's Cloud share goes to Meta as the template, the phone's share as its body text.
 */
describe.each(DB_KINDS)('cold contacts through the Cloud account on %s', (kind) => {
  let t: TestApp;
  let fake: FakeGraphApi;
  let engine: Engine;
  let base: string;
  let adminToken: string;
  const users = new Set<string>();

  beforeAll(async () => {
    fake = await startFakeGraphApi({
      templates: [
        {
          name: 'order_update',
          language: 'en_US',
          category: 'UTILITY',
          status: 'APPROVED',
          components: [{ type: 'BODY', text: 'Your order {{1}} has shipped.' }],
        },
      ],
    });
    t = await createTestApp(kind, {
      CLOUD_API_BASE_URL: fake.baseUrl,
      SECRET_KEY: 'ab'.repeat(32),
      SIMULATOR_LINK_AFTER_MS: '3600000',
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    engine = await startEngine(t.ctx);
    adminToken = await loginToken(t.app, (await buildAdmin(t)).username);
  });
  afterAll(async () => {
    await fake.close();
    await engine.stop();
    await t.close();
  });
  afterEach(async () => {
    await expectLedgerMatches(t.db, users);
    await fake.flush();
    await t.db.execute(sql`DELETE FROM credit_prices`);
    await t.db.execute(sql`DELETE FROM wa_sessions WHERE kind = 'cloud'`);
    fake.state.webhook = undefined;
  });

  const send = (token: string, sessionId: string, payload: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: `/api/session/${sessionId}/sendIndividualMessage`,
      headers: bearer(token),
      payload,
    });

  it('sends known numbers through the phone and cold ones through Cloud; the phone sends the template’s body text', async () => {
    const prices = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/credit-prices',
      headers: bearer(adminToken),
      payload: { linked: 1, cloud: 2 },
    });
    expect(prices.statusCode, prices.body).toBe(200);
    const a = await account(t, { credits: 20, track: users });
    const phone = await connectedInstance(t, a.token, '919740020001');
    const cloud = await connectCloudAccount(t, fake, base, a.token);
    for (const s of [phone, cloud]) {
      const policy = await t.app.inject({
        method: 'PUT',
        url: `/api/session/${s}/policy`,
        headers: bearer(a.token),
        payload: { ...OPEN_POLICY, typing: false },
      });
      expect(policy.statusCode, policy.body).toBe(200);
    }
    // The phone has chatted with 919811300001 before.
    const first = await send(a.token, phone, { content: 'Hello', chatIds: ['919811300001'] });
    expect(await waitForJobEnd(t.app, a.token, first.json().jobId)).toMatchObject({ status: 'completed' });

    const alone = await send(a.token, phone, {
      type: 'template',
      content: { name: 'order_update', language: 'en_US', parameters: ['A-7'] },
      chatIds: ['919811300002'],
      coldToCloud: true,
    });
    expect(alone.statusCode).toBe(400);
    expect(alone.json().message).toBe(SPREAD_TEXTS.coldNeedsBothKinds);

    // Before sending: the split, its credits, and Meta's utility rate (₹0.1150) for the Cloud share.
    const estimate = await t.app.inject({
      method: 'POST',
      url: `/api/session/${phone}/send-estimate`,
      headers: bearer(a.token),
      payload: {
        type: 'template',
        content: { name: 'order_update', language: 'en_US', parameters: ['A-7'] },
        chatIds: ['919811300001', '919811300002', '919811300003'],
        sessionIds: [cloud],
        coldToCloud: true,
      },
    });
    expect(estimate.json()).toEqual({
      success: true,
      recipients: 3,
      viaPhones: 1,
      viaCloud: 2,
      credits: 5,
      metaCostUnits: 2 * 1150,
    });

    const before = fake.sends.length;
    const res = await send(a.token, phone, {
      type: 'template',
      content: { name: 'order_update', language: 'en_US', parameters: ['A-7'] },
      chatIds: ['919811300001', '919811300002', '919811300003'],
      sessionIds: [cloud],
      coldToCloud: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ split: { viaPhones: 1, viaCloud: 2 }, creditsCharged: 1 + 2 * 2 });
    const jobId = res.json().jobId as string;
    expect(await waitForJobEnd(t.app, a.token, jobId)).toMatchObject({ status: 'completed' });
    const rows = await recipientsOf(t.db, jobId);
    expect(rows.map((r) => [r.chatId.split('@')[0], r.sessionId, r.price, r.status])).toEqual([
      ['919811300001', phone, 1, 'sent'],
      ['919811300002', cloud, 2, 'sent'],
      ['919811300003', cloud, 2, 'sent'],
    ]);
    // Meta got the template for the cold numbers only.
    expect(
      fake.sends
        .slice(before)
        .map((s) => [s.to, s.body.type])
        .sort(),
    ).toEqual([
      ['919811300002', 'template'],
      ['919811300003', 'template'],
    ]);
    // The phone sent the template's body with its value, as a text.
    const outbox = await t.app.inject({
      method: 'GET',
      url: `/api/simulator/sessions/${phone}/outbox`,
      headers: bearer(a.token),
    });
    const texts = (outbox.json().messages as Array<{ chatId: string; text: string | null }>).map((m) => [
      m.chatId.split('@')[0],
      m.text,
    ]);
    expect(texts).toContainEqual(['919811300001', 'Your order A-7 has shipped.']);
    expect(texts.filter(([c]) => c !== '919811300001')).toEqual([]);
    expect(await balanceOf(t.db, a.user.id)).toBe(20 - 1 - 5);

    // Meta refuses the Cloud share after all (a late error status: failed and refunded at 2 each).
    await t.db.transaction((tx) =>
      failWhere(
        tx,
        sql`r.job_id = ${jobId} AND r.session_id = ${cloud}`,
        'Connection Closed',
        'Connection Closed',
        10,
      ),
    );
    expect(await balanceOf(t.db, a.user.id)).toBe(20 - 1 - 5 + 4);
    // A Cloud recipient holds the template's values, not a text: it is not retried on the phone.
    const retry = await t.app.inject({
      method: 'POST',
      url: `/api/message-jobs-details/${jobId}/retry`,
      headers: bearer(a.token),
      payload: {},
    });
    expect(retry.statusCode).toBe(400);
    expect(retry.json().message).toBe(JOB_MESSAGES.retryOtherKind);
    expect(await balanceOf(t.db, a.user.id)).toBe(20 - 1 - 5 + 4);
  });
});
