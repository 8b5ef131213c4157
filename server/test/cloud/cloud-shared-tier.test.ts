import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { type Engine, startEngine } from '../../src/engine.ts';
import { connectBody, postCloudAccount } from '../fakes/cloud-account.ts';
import { approvedTemplate, type FakeGraphApi, startFakeGraphApi } from '../fakes/graph-api.ts';
import { expectLedgerMatches, waitForJobEnd } from '../fakes/messaging.ts';
import { account, bearer, createTestApp, DB_KINDS, type TestApp } from '../helpers.ts';
import { waitFor } from '../wait.ts';

/**
 * Meta's messaging limit is shared by the numbers of one business (Messaging Limits page,
 * developers.facebook.com/documentation/business-messaging/whatsapp/messaging-limits: "set at the
 * business portfolio level and are shared by all business phone numbers within a portfolio",
 * since 7 October 2025): two Cloud API numbers of one WhatsApp Business Account count their
 * template recipients of the last 24 hours together.
 */
const SECOND = { id: '106540352242923', display_phone_number: '+91 98000 15839' };

describe.each(DB_KINDS)('one messaging limit for the numbers of a business account on %s', (kind) => {
  let t: TestApp;
  let fake: FakeGraphApi;
  let engine: Engine;
  const users = new Set<string>();

  beforeAll(async () => {
    fake = await startFakeGraphApi({
      // The lowest tier Meta names (TIER_50), so that a test reaches it.
      phone: { messaging_limit_tier: 'TIER_50' },
      morePhoneNumbers: [SECOND],
      templates: [approvedTemplate('order_update', 'en_US', 'UTILITY', 'Your order {{1}} has shipped.')],
    });
    t = await createTestApp(kind, { CLOUD_API_BASE_URL: fake.baseUrl, SECRET_KEY: 'ef'.repeat(32) });
    engine = await startEngine(t.ctx);
  });
  afterAll(async () => {
    await engine.stop();
    await fake.close();
    await t.close();
  });

  async function connect(token: string, over: Record<string, string>): Promise<string> {
    const accountId = await postCloudAccount(t.app, token, connectBody(fake, over));
    await waitFor(`${accountId} connected`, async () => {
      const list = await t.app.inject({ method: 'GET', url: '/api/sessions', headers: bearer(token) });
      return (
        list.json().sessions.find((s: { sessionId: string }) => s.sessionId === accountId)?.status ===
        'CONNECTED'
      );
    });
    return accountId;
  }
  const numbers = (from: number, n: number) => Array.from({ length: n }, (_, i) => `9198111${from + i}`);
  const sendTemplate = (token: string, accountId: string, chatIds: string[]) =>
    t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(token),
      payload: {
        type: 'template',
        content: { name: 'order_update', language: 'en_US', parameters: ['A-1'] },
        chatIds,
      },
    });
  const estimate = async (token: string, accountId: string, recipients: number) =>
    (
      await t.app.inject({
        method: 'POST',
        url: `/api/session/${accountId}/cost-estimate`,
        headers: bearer(token),
        payload: { templateName: 'order_update', language: 'en_US', recipients },
      })
    ).json();

  it('a second number sends only what the first left of the 24-hour limit; the rest wait, and the send summary says so', async () => {
    const a = await account(t, { credits: 100, track: users });
    const first = await connect(a.token, { sessionName: 'Shop counter' });
    const second = await connect(a.token, { sessionName: 'Shop godown', phoneNumberId: SECOND.id });
    expect(await estimate(a.token, second, 30)).toMatchObject({ now: 30, waiting: 0 });

    // 30 of the business's 50 go from the first number.
    const one = await sendTemplate(a.token, first, numbers(10_000, 30));
    expect(one.statusCode, one.body).toBe(200);
    expect(await waitForJobEnd(t.app, a.token, one.json().jobId)).toMatchObject({ status: 'completed' });

    // The second number's summary counts them: 20 now, 10 wait.
    expect(await estimate(a.token, second, 30)).toMatchObject({
      now: 20,
      waiting: 10,
      tierText: '20 now, 10 wait for the 24-hour limit to free up',
    });
    const two = await sendTemplate(a.token, second, numbers(20_000, 30));
    expect(two.statusCode, two.body).toBe(200);
    const jobId = two.json().jobId as string;
    const rows = await waitFor('20 sent and 10 waiting a day', async () => {
      const r = await queryRows<{ status: string; n: number; due_in_hours: number }>(
        t.db,
        sql`SELECT status, count(*)::int AS n,
                   min(extract(epoch FROM (due_at - now())) / 3600)::float AS due_in_hours
            FROM message_job_recipients WHERE job_id = ${jobId} GROUP BY status ORDER BY status`,
      );
      const sent = r.find((x) => x.status === 'sent')?.n ?? 0;
      const queued = r.find((x) => x.status === 'queued');
      return sent === 20 && queued?.n === 10 && Number(queued.due_in_hours) > 23 ? r : null;
    });
    expect(rows.map((r) => [r.status, r.n])).toEqual([
      ['queued', 10],
      ['sent', 20],
    ]);
    // What Meta received: 30 from the first number, 20 from the second, 50 recipients in all.
    const from = (id: string) =>
      fake.calls.filter((c) => c.method === 'POST' && c.path.includes(`/${id}/messages`));
    expect([from(fake.phoneNumberId).length, from(SECOND.id).length]).toEqual([30, 20]);
    expect(new Set(fake.sends.map((s) => s.to)).size).toBe(50);
    // The waiting recipients keep their credits reserved; nothing was refunded.
    await expectLedgerMatches(t.db, users);
  });
});
