import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { accounts } from '../../src/db/schema.ts';
import { type Engine, startEngine } from '../../src/engine.ts';
import {
  account,
  bearer,
  buildAdmin,
  createTestApp,
  type DbKind,
  loginToken,
  type TestApp,
} from '../helpers.ts';
import { connectCloudAccount } from './cloud-account.ts';
import { approvedTemplate, type FakeGraphApi, type FakeTemplate, startFakeGraphApi } from './graph-api.ts';
import { signature } from './graph-api-payloads.ts';
import { expectLedgerMatches } from './messaging.ts';

/**
 * Posts `body` to the account's webhook route signed with `appSecret`, as Meta signs it (and as
 * the account's owner, who typed the secret, could).
 */
export function postSignedWebhook(t: TestApp, accountId: string, body: string, appSecret: string) {
  return t.app.inject({
    method: 'POST',
    url: `/api/cloud/webhook/${accountId}`,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature(body, appSecret) },
    payload: body,
  });
}

/** Template list entries as Meta's template management page shows them (name, language, category, status, components). */
export const CLOUD_TEMPLATES: FakeTemplate[] = [
  approvedTemplate('diwali_offer', 'en', 'MARKETING', 'Hello {{1}}, {{2}} off this Diwali!'),
  approvedTemplate('order_update', 'en_US', 'UTILITY', 'Your order {{1}} has shipped.'),
  {
    name: 'new_launch',
    language: 'en',
    category: 'MARKETING',
    status: 'PENDING',
    components: [{ type: 'BODY', text: 'Something new' }],
  },
];

export type CloudRig = {
  t: TestApp;
  fake: FakeGraphApi;
  /** Where the app listens (the fake posts its webhooks there). */
  base: string;
  /** The users a test made: their ledgers are checked after each test. */
  users: Set<string>;
  post(token: string, url: string, payload: unknown): ReturnType<TestApp['app']['inject']>;
  /** Connects the fake's number as a Cloud account of the user `token` (its webhooks go to `base`); its account id. */
  connect(token: string): Promise<string>;
  /** A user with a connected Cloud account whose webhook the fake posts to. */
  cloudAccount(credits?: number): Promise<Awaited<ReturnType<typeof account>> & { accountId: string }>;
};

/**
 * The app listening on a port with its engine, against a fake Graph API serving CLOUD_TEMPLATES,
 * for the tests of one `describe` (registers its hooks there). After each test the ledgers must
 * match and the Cloud accounts are deleted: one phone number id is one account. `env`: more settings
 * of the app.
 */
export function useCloudApp(kind: DbKind, env: Record<string, string> = {}): CloudRig {
  let engine: Engine;
  const rig = {
    users: new Set<string>(),
    post: (token, url, payload) =>
      rig.t.app.inject({ method: 'POST', url, headers: bearer(token), payload: payload as object }),
    connect: (token) => connectCloudAccount(rig.t, rig.fake, rig.base, token),
    async cloudAccount(credits = 100) {
      const a = await account(rig.t, { credits, track: rig.users });
      return { ...a, accountId: await rig.connect(a.token) };
    },
  } as CloudRig;

  beforeAll(async () => {
    rig.fake = await startFakeGraphApi({ templates: CLOUD_TEMPLATES });
    rig.t = await createTestApp(kind, {
      CLOUD_API_BASE_URL: rig.fake.baseUrl,
      SECRET_KEY: 'ab'.repeat(32),
      ...env,
    });
    await rig.t.app.listen({ port: 0, host: '127.0.0.1' });
    rig.base = `http://127.0.0.1:${(rig.t.app.server.address() as AddressInfo).port}`;
    engine = await startEngine(rig.t.ctx);
  });
  afterAll(async () => {
    await rig.fake.close();
    await engine.stop();
    await rig.t.close();
  });
  afterEach(async () => {
    await expectLedgerMatches(rig.t.db, rig.users);
    await rig.fake.flush();
    await rig.t.db.delete(accounts).where(eq(accounts.kind, 'cloud'));
    rig.fake.state.recipientErrors = {};
    rig.fake.state.webhook = undefined;
  });
  return rig;
}

/**
 * For a describe block that sets credit prices: an admin's token (signed in once), and the prices
 * back to their defaults after each test.
 */
export function adminSettingPrices(rig: CloudRig) {
  const admin = { token: '' };
  beforeAll(async () => {
    admin.token = await loginToken(rig.t.app, (await buildAdmin(rig.t)).username);
  });
  afterEach(async () => {
    await rig.t.db.execute(sql`DELETE FROM credit_prices`);
  });
  return admin;
}
