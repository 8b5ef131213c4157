import { FAILURE_TEXTS } from '@wa/contract';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { creditLedger, waChannels } from '../../src/db/schema.ts';
import {
  DEMO_CLOUD,
  DEMO_MARKETING_STOPPED,
  DEMO_UNDELIVERABLE,
  loopbackUrl,
  pointDemoWebhook,
  startDemoGraphApi,
} from '../../src/demo/cloud-graph.ts';
import { DEMO_USERS, seedDemo } from '../../src/demo/seed.ts';
import { type Engine, startEngine } from '../../src/engine.ts';
import type { FakeGraphApi } from '../../src/transport/simulator/graph-api.ts';
import { findUserByUsername } from '../../src/users/repository.ts';
import { expectLedgerChain } from '../fakes/messaging.ts';
import { bearer, createTestApp, DB_KINDS, loginToken, type TestApp } from '../helpers.ts';
import { waitFor } from '../wait.ts';

describe.each(DB_KINDS)('the demo seed on %s', (kind) => {
  let t: TestApp;
  let engine: Engine;
  let graph: FakeGraphApi;
  let webhookBase: string;
  beforeAll(async () => {
    // As `npm run demo` does: the simulated Meta first, the product's CLOUD_API_BASE_URL at it.
    graph = await startDemoGraphApi();
    t = await createTestApp(kind, {
      SIMULATOR_LINK_AFTER_MS: '3600000',
      CLOUD_API_BASE_URL: graph.baseUrl,
      SECRET_KEY: 'cd'.repeat(32),
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    webhookBase = loopbackUrl(t.app.server);
    engine = await startEngine(t.ctx);
  });
  afterAll(async () => {
    await graph.close();
    await engine.stop();
    await t.close();
  });

  it('writes its history through the engine: counters from the recipients, failures refunded, the ledger a chain', async () => {
    expect(await seedDemo(t.ctx, { graph, webhookBase })).toBe(true);
    const shop = (await findUserByUsername(t.db, DEMO_USERS.shop.username))!;
    const history = await queryRows<{
      id: string;
      status: string;
      total: number;
      sent_count: number;
      failed_count: number;
      sent: number;
      failed: number;
      finished_at: Date | null;
      last_sent: Date | null;
    }>(
      t.db,
      sql`SELECT j.id, j.status, j.total, j.sent_count, j.failed_count, j.finished_at,
                 count(*) FILTER (WHERE r.status = 'sent')::int AS sent,
                 count(*) FILTER (WHERE r.status = 'failed')::int AS failed,
                 max(r.sent_at) AS last_sent
          FROM message_jobs j JOIN message_job_recipients r ON r.job_id = j.id
          WHERE j.user_id = ${shop.id} AND j.created_at < now() - interval '1 day'
          GROUP BY j.id`,
    );
    expect(history.length).toBeGreaterThan(5);
    expect(history.some((j) => j.failed > 0)).toBe(true);
    for (const job of history) {
      expect([job.sent_count, job.failed_count]).toEqual([job.sent, job.failed]);
      expect(job.sent + job.failed).toBe(job.total);
      expect(job.status).toBe(job.failed > 0 ? 'failed' : 'completed');
      // The times are the history's, not the seed's.
      expect(new Date(job.finished_at!).getTime()).toBeLessThan(Date.now() - 86_400_000);
      if (job.last_sent) expect(new Date(job.last_sent).getTime()).toBeLessThan(Date.now() - 86_400_000);
      const refunds = await t.db
        .select()
        .from(creditLedger)
        .where(and(eq(creditLedger.jobId, job.id), eq(creditLedger.reason, 'refund')));
      expect(refunds.map((r) => r.delta)).toEqual(job.failed > 0 ? [job.failed] : []);
    }
    await expectLedgerChain(t.db, shop.id);
    // A list whose consent was recorded at import, and a customer who opted out in Hindi.
    const consented = await queryRows<{ name: string; purpose: string; file_name: string; n: number }>(
      t.db,
      sql`SELECT l.name, g.purpose, g.file_name, count(c.*)::int AS n
          FROM contact_lists l JOIN consent_grants g ON g.list_id = l.id
          JOIN contacts c ON c.list_id = l.id AND c.consent_grant_id = g.id
          WHERE l.user_id = ${shop.id} GROUP BY l.name, g.purpose, g.file_name`,
    );
    expect(consented).toEqual([
      {
        name: 'Regular customers',
        purpose: 'Order updates and festival offers',
        file_name: 'regular-customers.csv',
        n: 8,
      },
    ]);
    const hindi = await queryRows<{ keyword: string; language: string }>(
      t.db,
      sql`SELECT keyword, language FROM opt_outs WHERE user_id = ${shop.id} AND source = 'reply' AND address_kind = 'phone'`,
    );
    expect(hindi).toEqual([{ keyword: 'बंद करो', language: 'hi' }]);
    // A status to the regular customers, less the one who opted out, one credit each.
    // (The engine may already have posted it: a number not on WhatsApp is refunded.)
    const [status] = await queryRows<{ total: number; background: string; charged: number; kept: number }>(
      t.db,
      sql`SELECT j.total, j.status_style->>'backgroundColor' AS background, j.total - j.failed_count AS kept,
                 (SELECT -sum(l.delta)::int FROM credit_ledger l WHERE l.job_id = j.id) AS charged
          FROM message_jobs j WHERE j.user_id = ${shop.id} AND j.message_type = 'status'`,
    );
    expect(status).toMatchObject({ total: 7, background: '#FF7A00' });
    expect(status!.charged).toBe(status!.kept);

    // Replies to answer: each history reply in its person's Inbox thread, with the job it answers;
    // some unread, some done.
    const inbox = await queryRows<{
      replies: number;
      kept: number;
      answering: number;
      unread: number;
      done: number;
    }>(
      t.db,
      sql`SELECT (SELECT count(*)::int FROM message_job_recipients r JOIN message_jobs j ON j.id = r.job_id
                  WHERE j.user_id = ${shop.id} AND r.replied_at IS NOT NULL) AS replies,
                 (SELECT count(*)::int FROM inbox_messages m WHERE m.user_id = ${shop.id} AND m.direction = 'in') AS kept,
                 (SELECT count(*)::int FROM inbox_messages m WHERE m.user_id = ${shop.id} AND m.job_id IS NOT NULL) AS answering,
                 (SELECT count(*)::int FROM inbox_threads t WHERE t.user_id = ${shop.id} AND t.unread > 0) AS unread,
                 (SELECT count(*)::int FROM inbox_threads t WHERE t.user_id = ${shop.id} AND t.state = 'done') AS done`,
    );
    expect(inbox[0]!.replies).toBeGreaterThan(2);
    expect(inbox[0]!.kept).toBeGreaterThanOrEqual(inbox[0]!.replies);
    expect(inbox[0]!.answering).toBe(inbox[0]!.replies);
    expect(inbox[0]!.unread).toBeGreaterThan(0);
    expect(inbox[0]!.done).toBeGreaterThan(0);
  });

  it('has one channel, created through the account, and one post to it sent as a job of one recipient', async () => {
    const shop = (await findUserByUsername(t.db, DEMO_USERS.shop.username))!;
    const channels = await t.db.select().from(waChannels);
    expect(channels.map((c) => [c.name, c.role, c.followers])).toEqual([
      ['Sharma Sarees Offers', 'OWNER', 0],
    ]);
    const posts = await queryRows<{ total: number; chat_id: string; chat_name: string; status: string }>(
      t.db,
      sql`SELECT j.total, r.chat_id, r.chat_name, r.status FROM message_jobs j
          JOIN message_job_recipients r ON r.job_id = j.id
          WHERE j.user_id = ${shop.id} AND r.chat_id LIKE '%@newsletter'`,
    );
    expect(posts.map((p) => [p.total, p.chat_id, p.chat_name])).toEqual([
      [1, channels[0]!.channelId, 'Sharma Sarees Offers'],
    ]);
  });

  it('has a Cloud API account on the simulated Meta: its approved templates read from Meta, a template campaign sent, its statuses and Meta’s price from signed webhooks', async () => {
    const shop = (await findUserByUsername(t.db, DEMO_USERS.shop.username))!;
    const [account] = await queryRows<{
      session_id: string;
      kind: string;
      session_name: string;
      phone_number: string;
      waba_id: string;
      verified_name: string;
      messaging_limit_tier: string;
      access_token: string;
    }>(
      t.db,
      sql`SELECT s.session_id, s.kind, s.session_name, s.phone_number, c.waba_id, c.verified_name,
                 c.messaging_limit_tier, c.access_token
          FROM wa_sessions s JOIN cloud_accounts c ON c.session_id = s.session_id
          WHERE s.user_id = ${shop.id}`,
    );
    // What the product asked of Meta at connect: the number, then the templates.
    expect(account).toMatchObject({
      kind: 'cloud',
      session_name: DEMO_CLOUD.sessionName,
      phone_number: '919876543211',
      waba_id: DEMO_CLOUD.wabaId,
      verified_name: 'Asha Sarees',
      messaging_limit_tier: 'TIER_2K',
    });
    // Sealed like every secret (SECRET_KEY set), not stored in the clear.
    expect(account!.access_token).not.toContain(DEMO_CLOUD.accessToken);
    expect(graph.calls.map((c) => `${c.method} ${c.path}`)).toEqual(
      expect.arrayContaining([
        `GET /v24.0/${DEMO_CLOUD.phoneNumberId}`,
        `GET /v24.0/${DEMO_CLOUD.wabaId}/message_templates`,
      ]),
    );
    const templates = await queryRows<{
      name: string;
      category: string;
      status: string;
      parameters: string[];
    }>(
      t.db,
      sql`SELECT name, category, status, parameters FROM cloud_templates
          WHERE session_id = ${account!.session_id} ORDER BY name`,
    );
    expect(templates).toEqual([
      { name: 'diwali_offer', category: 'MARKETING', status: 'APPROVED', parameters: ['1'] },
      { name: 'order_shipped', category: 'UTILITY', status: 'APPROVED', parameters: ['1', '2'] },
      { name: 'store_hours', category: 'UTILITY', status: 'APPROVED', parameters: [] },
    ]);

    // The campaign: sent by the engine through the Graph API; the statuses come back signed.
    const [job] = await queryRows<{ id: string }>(
      t.db,
      sql`SELECT id FROM message_jobs WHERE session_id = ${account!.session_id} AND message_type = 'template'`,
    );
    expect(job).toBeDefined();
    const recipients = await waitFor(
      'the campaign sent, read and priced by the webhooks',
      async () => {
        const rows = await queryRows<{
          chat_id: string;
          status: string;
          error: string | null;
          delivered: boolean;
          read: boolean;
          pricing_category: string | null;
          cost_units: number | null;
        }>(
          t.db,
          sql`SELECT chat_id, status, error, delivered_at IS NOT NULL AS delivered, read_at IS NOT NULL AS read,
                     pricing_category, cost_units
              FROM message_job_recipients WHERE job_id = ${job!.id} ORDER BY chat_id`,
        );
        const done = rows.every((r) => r.status === 'failed' || (r.read && r.cost_units !== null));
        return rows.length > 0 && done ? rows : null;
      },
      60_000,
    );
    const undeliverable = `${DEMO_UNDELIVERABLE}@s.whatsapp.net`;
    const stopped = `${DEMO_MARKETING_STOPPED}@s.whatsapp.net`;
    expect(recipients.length).toBe(11);
    expect(recipients.find((r) => r.chat_id === undeliverable)).toMatchObject({
      status: 'failed',
      error: 'Message undeliverable',
    });
    expect(recipients.find((r) => r.chat_id === stopped)).toMatchObject({
      status: 'failed',
      error: FAILURE_TEXTS.marketingStopped,
    });
    const delivered = recipients.filter((r) => r.chat_id !== undeliverable && r.chat_id !== stopped);
    expect(delivered).toHaveLength(9);
    // Meta's marketing rate (cloud_prices: ₹0.8631 in ten-thousandths) for each delivered message.
    for (const r of delivered)
      expect(r).toMatchObject({
        status: 'sent',
        delivered: true,
        read: true,
        pricing_category: 'marketing',
        cost_units: 8631,
      });
    // Each customer's own name in {{1}}, as the simulated Meta received the send.
    const bodies = graph.sends.map((s) => s.body.template?.components?.[0]?.parameters?.[0]?.text);
    expect(bodies).toEqual(expect.arrayContaining(['Asha', 'Meena', 'there']));

    // What MIS shows: the job finished, Meta's category and its cost.
    const token = await loginToken(t.app, DEMO_USERS.shop.username, DEMO_USERS.shop.password);
    const details = await waitFor('the campaign finished', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/message-jobs-details/${job!.id}?media=0`,
        headers: bearer(token),
      });
      const j = res.json().job;
      return j?.status === 'failed' ? j : null;
    });
    expect(details).toMatchObject({ templateCategory: 'marketing', costUnits: 9 * 8631 });
    // The people WhatsApp shows without a number: the one with a username (her number hidden by
    // Meta) by her username, the BSUID-only one by a short id; never a raw id.
    const names = details.details.map((d: { chatName: string }) => d.chatName);
    expect(names).toEqual(expect.arrayContaining(['@meera.designs', 'IN.202…0102']));
    // And the linked phone's LID-only contact who wrote STOP, on the opt-out list.
    const optOuts = await t.app.inject({ method: 'GET', url: '/api/opt-outs', headers: bearer(token) });
    expect(optOuts.json().optOuts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          phoneNumber: 'LID 226688…0101',
          address: { kind: 'lid', value: '226688000000101' },
        }),
      ]),
    );
    // The credits the seed granted end where promised once the undeliverable one is refunded.
    await waitFor(
      'the refund',
      async () => {
        const [u] = await queryRows<{ credits: number }>(
          t.db,
          sql`SELECT credits FROM users WHERE id = ${shop.id}`,
        );
        return Number(u?.credits) === DEMO_USERS.shop.credits;
      },
      20_000,
    );
    await expectLedgerChain(t.db, shop.id);
  });

  it('a second start points Meta’s webhooks at the existing account again', async () => {
    const [{ session_id: accountId }] = (await queryRows<{ session_id: string }>(
      t.db,
      sql`SELECT session_id FROM cloud_accounts WHERE phone_number_id = ${DEMO_CLOUD.phoneNumberId}`,
    )) as [{ session_id: string }];
    graph.state.webhook = undefined;
    expect(await seedDemo(t.ctx, { graph, webhookBase })).toBe(false);
    expect(await pointDemoWebhook(t.ctx, graph, webhookBase)).toBe(true);
    expect((graph.state as { webhook?: { url: string } }).webhook?.url).toBe(
      `${webhookBase}/api/cloud/webhook/${accountId}`,
    );
  });
});
