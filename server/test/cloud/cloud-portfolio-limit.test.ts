import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudTransport } from '../../src/accounts/transports.ts';
import { type AppContext, createContext } from '../../src/context.ts';
import { type Database, openPostgres, queryRows } from '../../src/db/client.ts';
import { buildApp } from '../../src/http/app.ts';
import { SendError, type Transport } from '../../src/transport/types.ts';
import { connectBody, postCloudAccount } from '../fakes/cloud-account.ts';
import { approvedTemplate, type FakeGraphApi, startFakeGraphApi } from '../fakes/graph-api.ts';
import {
  buildUser,
  createPostgresDatabaseUrl,
  DB_KINDS,
  type DbKind,
  loginToken,
  openTestDatabase,
  testConfig,
} from '../helpers.ts';

/**
 * Meta's messaging limit is the business portfolio's, shared by all its numbers (Messaging Limits
 * page, developers.facebook.com/documentation/business-messaging/whatsapp/messaging-limits, since
 * 7 October 2025; read as `whatsapp_business_manager_messaging_limit`). Two nodes, each driving one
 * number of the business against one database, count its recipients together, also when the two
 * numbers are in two WhatsApp Business Accounts of the one portfolio.
 */
const SECOND = { id: '106540352242923', display_phone_number: '+91 98000 15839' };
/** A second WhatsApp Business Account of the same portfolio, holding the second number. */
const SECOND_WABA = '102290129340399';
const LIMIT = 250;
const PER_NUMBER = 200;

type Nodes = { a: AppContext; b: AppContext; close(): Promise<void> };

/** Two nodes on one database: on PGlite (one in-process database) they share it; on PostgreSQL each has its own pool. */
async function twoNodes(kind: DbKind, env: Record<string, string>): Promise<Nodes> {
  if (kind === 'pglite') {
    const database = await openTestDatabase(kind);
    return {
      a: createContext(testConfig(env), database, 'node-a'),
      b: createContext(testConfig(env), database, 'node-b'),
      close: () => database.close(),
    };
  }
  const created = await createPostgresDatabaseUrl();
  const dbs: Database[] = [await openPostgres(created.url), await openPostgres(created.url)];
  return {
    a: createContext(testConfig(env), dbs[0]!, 'node-a'),
    b: createContext(testConfig(env), dbs[1]!, 'node-b'),
    close: async () => {
      for (const d of dbs) await d.close();
      await created.drop();
    },
  };
}

describe.each(DB_KINDS)('one messaging limit for a business across two nodes on %s', (kind) => {
  let fake: FakeGraphApi;
  let nodes: Nodes;
  const transports: Transport[] = [];

  beforeAll(async () => {
    fake = await startFakeGraphApi({
      // The lowest limit Meta names for a portfolio (a new one's).
      phone: { whatsapp_business_manager_messaging_limit: 'TIER_250' },
      morePhoneNumbers: [SECOND],
      moreBusinessAccounts: [SECOND_WABA],
      templates: [approvedTemplate('order_update', 'en_US', 'UTILITY', 'Your order {{1}} has shipped.')],
    });
    nodes = await twoNodes(kind, { CLOUD_API_BASE_URL: fake.baseUrl, SECRET_KEY: 'ab'.repeat(32) });
  });
  afterAll(async () => {
    for (const t of transports) await t.close();
    await fake.close();
    await nodes.close();
  });

  it('two numbers of the business sending at once from two nodes never pass its limit together', async () => {
    // Both numbers connected through node A's API (what any node's API does).
    const app = await buildApp(nodes.a);
    await app.ready();
    const user = await buildUser(nodes.a, { credits: 0 });
    const token = await loginToken(app, user.username);
    const connect = (over: Record<string, string>) => postCloudAccount(app, token, connectBody(fake, over));
    const first = await connect({ sessionName: 'Counter' });
    const second = await connect({ sessionName: 'Godown', phoneNumberId: SECOND.id, wabaId: SECOND_WABA });
    await app.close();

    // Each node drives one number, as the account runner does for the accounts it owns.
    const onA = await cloudTransport(nodes.a, { accountId: first, phoneNumber: '919800015838' });
    const onB = await cloudTransport(nodes.b, { accountId: second, phoneNumber: '919800015839' });
    transports.push(onA, onB);
    await Promise.all([onA.connect(), onB.connect()]);
    expect([onA.state, onB.state]).toEqual(['open', 'open']);

    const template = {
      kind: 'template' as const,
      name: 'order_update',
      language: 'en_US',
      parameters: ['A-1'],
    };
    /** Sends to `count` new numbers, 8 at a time (a Cloud number's concurrent sends); what each send answered. */
    const sendAll = async (transport: Transport, from: number) => {
      const queue = Array.from(
        { length: PER_NUMBER },
        (_, i) => `9198222${String(from + i).padStart(5, '0')}`,
      );
      const results: Array<'sent' | Date> = [];
      const lane = async () => {
        for (let to = queue.shift(); to; to = queue.shift()) {
          try {
            await transport.send(`${to}@s.whatsapp.net`, template);
            results.push('sent');
          } catch (err) {
            if (!(err instanceof SendError) || err.code !== 'rate-limited' || !err.until) throw err;
            results.push(err.until);
          }
        }
      };
      await Promise.all(Array.from({ length: 8 }, lane));
      return results;
    };
    const before = fake.sends.length;
    const [a, b] = await Promise.all([sendAll(onA, 0), sendAll(onB, 50_000)]);
    const sent = (r: Array<'sent' | Date>) => r.filter((x) => x === 'sent').length;

    // Exactly the limit went, between the two numbers; Meta received no more.
    expect(sent(a) + sent(b)).toBe(LIMIT);
    expect(new Set(fake.sends.slice(before).map((s) => s.to)).size).toBe(LIMIT);
    // Both numbers sent some (neither was starved by a count of its own).
    expect(sent(a)).toBeGreaterThan(0);
    expect(sent(b)).toBeGreaterThan(0);
    // The others wait until the first of the 24 hours' recipients leaves the window.
    const waits = [...a, ...b].filter((x): x is Date => x instanceof Date);
    expect(waits.length).toBe(2 * PER_NUMBER - LIMIT);
    for (const until of waits) expect(until.getTime() - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    // What the database holds: one business portfolio, its 250 recipients.
    const rows = await queryRows<{ portfolio: string; n: number }>(
      nodes.b.db,
      sql`SELECT portfolio, count(*)::int AS n FROM cloud_portfolio_recipients GROUP BY portfolio`,
    );
    expect(rows).toEqual([{ portfolio: fake.portfolioId, n: LIMIT }]);

    // A recipient one node counted may be sent to by the other number: it is in the window already.
    const counted = fake.sends.find((s) => s.messageId)!.to;
    await expect(onB.send(`${counted}@s.whatsapp.net`, template)).resolves.toMatchObject({
      messageId: expect.stringMatching(/^wamid\./),
    });
    await expect(onA.send('919822299999@s.whatsapp.net', template)).rejects.toMatchObject({
      code: 'rate-limited',
      message: "Waiting: the account's limit of 250 recipients in 24 hours is reached",
    });
  });
});

describe.each(DB_KINDS)('the business portfolio of a Cloud number on %s', (kind) => {
  const closers: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });

  /** One node with a user, against a fake whose account names `portfolioId` as its owner. */
  async function node(portfolioId: string | null) {
    const fake = await startFakeGraphApi({
      portfolioId,
      phone: { whatsapp_business_manager_messaging_limit: 'TIER_250' },
      templates: [approvedTemplate('order_update', 'en_US', 'UTILITY', 'Your order {{1}} has shipped.')],
    });
    const database = await openTestDatabase(kind);
    const ctx = createContext(
      testConfig({ CLOUD_API_BASE_URL: fake.baseUrl, SECRET_KEY: 'ab'.repeat(32) }),
      database,
    );
    const app = await buildApp(ctx);
    await app.ready();
    closers.push(
      () => fake.close(),
      () => database.close(),
      () => app.close(),
    );
    const user = await buildUser(ctx, { credits: 0 });
    const token = await loginToken(app, user.username);
    const accountId = await postCloudAccount(app, token, connectBody(fake));
    const stored = async () =>
      (
        await queryRows<{ portfolio_id: string | null }>(
          ctx.db,
          sql`SELECT portfolio_id FROM cloud_accounts WHERE session_id = ${accountId}`,
        )
      )[0]!.portfolio_id;
    const sendOne = async (to: string) => {
      const transport = await cloudTransport(ctx, { accountId, phoneNumber: '919800015838' });
      closers.push(() => transport.close());
      await transport.connect();
      await transport.send(`${to}@s.whatsapp.net`, {
        kind: 'template',
        name: 'order_update',
        language: 'en_US',
        parameters: ['A-1'],
      });
      return queryRows<{ portfolio: string }>(
        ctx.db,
        sql`SELECT portfolio FROM cloud_portfolio_recipients ORDER BY portfolio, recipient`,
      );
    };
    return { fake, ctx, stored, sendOne };
  }

  it('is read at connect, and an account connected before it was asked has it read when it starts', async () => {
    const { fake, ctx, stored, sendOne } = await node('506914307656634');
    expect(await stored()).toBe('506914307656634');
    expect(fake.calls.some((c) => c.path === `/v24.0/${fake.wabaId}`)).toBe(true);
    // An account stored without it (connected before the product asked), whose WhatsApp Business
    // Account counted a recipient an hour ago: that recipient is counted in the portfolio too.
    await ctx.db.execute(sql`UPDATE cloud_accounts SET portfolio_id = NULL`);
    await ctx.db.execute(sql`INSERT INTO cloud_portfolios (portfolio) VALUES (${fake.wabaId})`);
    await ctx.db.execute(
      sql`INSERT INTO cloud_portfolio_recipients VALUES (${fake.wabaId}, '919822200009', now() - interval '1 hour')`,
    );
    const counted = await sendOne('919822200001');
    expect(counted.filter((r) => r.portfolio === '506914307656634')).toHaveLength(2);
    expect(await stored()).toBe('506914307656634');
  });

  it('is counted per WhatsApp Business Account when Meta names no owner', async () => {
    const { fake, stored, sendOne } = await node(null);
    expect(await stored()).toBeNull();
    expect(await sendOne('919822200002')).toEqual([{ portfolio: fake.wabaId }]);
  });
});
