import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cloudAccounts, messageJobs, optOuts, waSessions } from '../src/db/schema.ts';
import { type Engine, startEngine } from '../src/engine.ts';
import { connectBody, connectCloudAccount } from './fakes/cloud-account.ts';
import { type FakeGraphApi, type FakeTemplate, startFakeGraphApi } from './fakes/graph-api.ts';
import { signature } from './fakes/graph-api-payloads.ts';
import { balanceOf, expectLedgerMatches, jobRow, recipientsOf, waitFor } from './fakes/messaging.ts';
import { account, bearer, createTestApp, DB_KINDS, type TestApp } from './helpers.ts';

/** Template list entries as Meta's template management page shows them (name, language, category, status, components). */
const TEMPLATES: FakeTemplate[] = [
  {
    name: 'diwali_offer',
    language: 'en',
    category: 'MARKETING',
    status: 'APPROVED',
    components: [{ type: 'BODY', text: 'Hello {{1}}, {{2}} off this Diwali!' }],
  },
  {
    name: 'order_update',
    language: 'en_US',
    category: 'UTILITY',
    status: 'APPROVED',
    components: [{ type: 'BODY', text: 'Your order {{1}} has shipped.' }],
  },
  {
    name: 'new_launch',
    language: 'en',
    category: 'MARKETING',
    status: 'PENDING',
    components: [{ type: 'BODY', text: 'Something new' }],
  },
];

const SECRET_KEY = 'ab'.repeat(32);

describe.each(DB_KINDS)('Cloud API accounts on %s', (kind) => {
  let t: TestApp;
  let fake: FakeGraphApi;
  let engine: Engine;
  let base: string;
  const users = new Set<string>();

  beforeAll(async () => {
    fake = await startFakeGraphApi({ templates: TEMPLATES });
    t = await createTestApp(kind, { CLOUD_API_BASE_URL: fake.baseUrl, SECRET_KEY });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    engine = await startEngine(t.ctx);
  });
  afterAll(async () => {
    await fake.close();
    await engine.stop();
    await t.close();
  });

  const post = (token: string, url: string, payload: unknown) =>
    t.app.inject({ method: 'POST', url, headers: bearer(token), payload: payload as object });
  /** A user with a connected Cloud account whose webhook the fake posts to. */
  async function cloudAccount(credits = 100) {
    const a = await account(t, { credits, track: users });
    return { ...a, sessionId: await connectCloudAccount(t, fake, base, a.token) };
  }

  /** The accounts are deleted after each test: one phone number id is one account. */
  afterEach(async () => {
    await expectLedgerMatches(t.db, users);
    await fake.flush();
    await t.db.delete(waSessions).where(eq(waSessions.kind, 'cloud'));
    fake.state.recipientErrors = {};
    fake.state.webhook = undefined;
  });

  it('refuses wrong credentials with Meta’s text, and connects good ones as kind cloud with quality and tier', async () => {
    const a = await account(t, { credits: 0 });
    const wrong = await post(
      a.token,
      '/api/cloud-instances',
      connectBody(fake, { accessToken: 'EAAJB-wrong' }),
    );
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().message).toMatch(/^Error validating access token: Session has expired/);
    const unknownId = await post(
      a.token,
      '/api/cloud-instances',
      connectBody(fake, { phoneNumberId: '999' }),
    );
    expect(unknownId.statusCode).toBe(400);
    expect(unknownId.json().message).toContain("Object with ID '999' does not exist");

    const ok = await post(a.token, '/api/cloud-instances', connectBody(fake));
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ success: true, sessionId: expect.stringMatching(/^919800015838_/) });
    const sessionId = ok.json().sessionId;
    await waitFor('connected', async () => {
      const list = await t.app.inject({ method: 'GET', url: '/api/sessions', headers: bearer(a.token) });
      return list.json().sessions[0]?.status === 'CONNECTED';
    });
    const list = await t.app.inject({ method: 'GET', url: '/api/sessions', headers: bearer(a.token) });
    expect(list.json().sessions[0]).toMatchObject({
      sessionId,
      kind: 'cloud',
      phoneNumber: '919800015838',
      qualityRating: 'GREEN',
      messagingLimitTier: 'TIER_2K',
      verifiedName: 'Lucky Shrub',
    });
    // The secrets are sealed at rest (SECRET_KEY), never stored as typed.
    const [row] = await t.db.select().from(cloudAccounts).where(eq(cloudAccounts.sessionId, sessionId));
    for (const v of [row!.accessToken, row!.appSecret, row!.verifyToken]) expect(v).toMatch(/^enc1:/);
    expect(row!.accessToken).not.toContain(fake.accessToken);
    // One number is one account.
    const again = await post(a.token, '/api/cloud-instances', connectBody(fake, { sessionName: 'Again' }));
    expect(again.statusCode).toBe(409);

    // Templates, as synced from Meta.
    const templates = await t.app.inject({
      method: 'GET',
      url: `/api/session/${sessionId}/templates`,
      headers: bearer(a.token),
    });
    expect(templates.json()).toEqual({
      success: true,
      templates: [
        expect.objectContaining({
          name: 'diwali_offer',
          language: 'en',
          category: 'MARKETING',
          status: 'APPROVED',
          bodyText: 'Hello {{1}}, {{2}} off this Diwali!',
          parameterCount: 2,
        }),
        expect.objectContaining({ name: 'new_launch', status: 'PENDING', parameterCount: 0 }),
        expect.objectContaining({ name: 'order_update', category: 'UTILITY', parameterCount: 1 }),
      ],
    });
    // At most once a minute: a second call within the minute does not ask Meta again.
    const asked = fake.calls.filter((c) => c.path.endsWith('/message_templates')).length;
    await t.app.inject({
      method: 'GET',
      url: `/api/session/${sessionId}/templates`,
      headers: bearer(a.token),
    });
    expect(fake.calls.filter((c) => c.path.endsWith('/message_templates')).length).toBe(asked);
  });

  it('answers Meta’s verification with the account’s verify token only, and refuses unsigned events', async () => {
    const a = await cloudAccount();
    const url = `/api/cloud/webhook/${a.sessionId}`;
    const good = await t.app.inject({
      method: 'GET',
      url: `${url}?hub.mode=subscribe&hub.verify_token=my-verify-token&hub.challenge=1158201444`,
    });
    expect(good.statusCode).toBe(200);
    expect(good.body).toBe('1158201444');
    const bad = await t.app.inject({
      method: 'GET',
      url: `${url}?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1158201444`,
    });
    expect(bad.statusCode).toBe(403);

    // A STOP signed with another secret, and one unsigned: 401, nobody opted out.
    const body = JSON.stringify(inbound(fake, '919811122233', 'STOP'));
    for (const headers of [{ 'x-hub-signature-256': signature(body, 'not-the-secret') }, {}]) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', ...headers },
        payload: body,
      });
      expect(res.statusCode).toBe(401);
    }
    expect(await t.db.select().from(optOuts).where(eq(optOuts.userId, a.user.id))).toEqual([]);
    // Signed with the app secret: the number is opted out.
    const signed = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature(body, fake.appSecret) },
      payload: body,
    });
    expect(signed.statusCode).toBe(200);
    const out = await t.db.select().from(optOuts).where(eq(optOuts.userId, a.user.id));
    expect(out.map((o) => o.phoneNumber)).toEqual(['919811122233']);
  });

  it('sends a personalised template to each recipient; statuses (repeated, out of order) give delivered, read, category and cost', async () => {
    const a = await cloudAccount(10);
    fake.state.webhook = { ...fake.state.webhook!, outOfOrder: true, repeat: 2 };
    const recipients = [
      { chatId: '919811100001', fields: { name: 'Asha', discount: '20%' } },
      { chatId: '919811100002', fields: { name: 'Ravi', discount: '' } },
      { chatId: '919811100003', fields: { name: 'Meena', discount: '15%' } },
    ];
    const res = await post(a.token, `/api/session/${a.sessionId}/sendIndividualMessage`, {
      type: 'template',
      content: { name: 'diwali_offer', language: 'en', parameters: ['{{name}}', '{{discount|10%}}'] },
      recipients,
    });
    expect(res.statusCode, res.body).toBe(200);
    const jobId = res.json().jobId as string;
    expect(await balanceOf(t.db, a.user.id)).toBe(7);
    await waitFor('all read', async () => (await jobRow(t.db, jobId))?.readCount === 3, 20_000);
    await fake.flush();

    // What Meta received: the template, its language and each recipient's own values, to E.164 digits.
    const bodies = fake.sends.map((s) => s.body).sort((x, y) => x.to.localeCompare(y.to));
    expect(
      bodies.map((b) => [
        b.to,
        b.template.name,
        b.template.language.code,
        b.template.components[0].parameters.map((p: { text: string }) => p.text),
      ]),
    ).toEqual([
      ['919811100001', 'diwali_offer', 'en', ['Asha', '20%']],
      ['919811100002', 'diwali_offer', 'en', ['Ravi', '10%']],
      ['919811100003', 'diwali_offer', 'en', ['Meena', '15%']],
    ]);
    const job = await jobRow(t.db, jobId);
    expect(job).toMatchObject({
      status: 'completed',
      sentCount: 3,
      deliveredCount: 3,
      readCount: 3,
      messageType: 'template',
    });
    const rows = await recipientsOf(t.db, jobId);
    for (const r of rows) {
      expect(r.messageId).toBe(fake.sends.find((s) => s.to === r.chatId.split('@')[0])!.messageId);
      expect(r.deliveredAt).not.toBeNull();
      expect(r.readAt).not.toBeNull();
      expect(r.pricingCategory).toBe('marketing');
      expect(r.costUnits).toBe(8631);
    }
    // Job Details carry the category and the cost of what was delivered.
    const details = await t.app.inject({
      method: 'GET',
      url: `/api/message-jobs-details/${jobId}`,
      headers: bearer(a.token),
    });
    expect(details.json().job.details[0]).toMatchObject({ pricingCategory: 'marketing', costUnits: 8631 });
    expect(details.json().job.costUnits).toBe(3 * 8631);
  });

  // Known flake after the merge (issue 30's note): on PostgreSQL, after the file's earlier tests,
  // the 131049 that comes by webhook sometimes leaves its recipient 'sent' (cloudRetries 0). Alone
  // it passes on both databases. Retried until the cause is found; each try asserts everything.
  it('maps Meta’s errors: 131026 and 131047 fail with Meta’s title (refunded), 131049 waits a day', async () => {
    const a = await cloudAccount(10);
    fake.state.recipientErrors = {
      '919811100011': { code: 131026, via: 'webhook' },
      '919811100012': { code: 131047, via: 'response' },
      '919811100013': { code: 131049, via: 'response' },
      '919811100014': { code: 131049, via: 'webhook' },
    };
    const res = await post(a.token, `/api/session/${a.sessionId}/sendIndividualMessage`, {
      type: 'template',
      content: { name: 'order_update', language: 'en_US', parameters: ['A-1001'] },
      chatIds: ['919811100011', '919811100012', '919811100013', '919811100014', '919811100015'],
    });
    expect(res.statusCode, res.body).toBe(200);
    const jobId = res.json().jobId as string;
    const byChat = async () =>
      new Map((await recipientsOf(t.db, jobId)).map((r) => [r.chatId.split('@')[0]!, r]));
    await waitFor('the outcomes', async () => {
      const m = await byChat();
      return (
        m.get('919811100011')?.status === 'failed' &&
        m.get('919811100012')?.status === 'failed' &&
        m.get('919811100014')?.cloudRetries === 1 &&
        m.get('919811100015')?.deliveredAt
      );
    });
    const m = await byChat();
    expect(m.get('919811100011')).toMatchObject({ status: 'failed', error: 'Message undeliverable' });
    expect(m.get('919811100012')).toMatchObject({ status: 'failed', error: 'Re-engagement message' });
    for (const n of ['919811100013', '919811100014']) {
      const r = m.get(n)!;
      expect(r.status, n).toBe('queued');
      expect(r.cloudRetries, n).toBe(1);
      const wait = r.dueAt.getTime() - Date.now();
      expect(wait, n).toBeGreaterThan(23.9 * 3600_000);
      expect(wait, n).toBeLessThanOrEqual(24 * 3600_000);
    }
    expect(m.get('919811100015')).toMatchObject({
      status: 'sent',
      pricingCategory: 'utility',
      costUnits: 1150,
    });
    // Two refunded, three still reserved (one sent, two waiting a day).
    expect(await balanceOf(t.db, a.user.id)).toBe(10 - 5 + 2);
    const job = await jobRow(t.db, jobId);
    expect(job).toMatchObject({ status: 'processing', sentCount: 1, failedCount: 2 });
    // Tidy: the waiting ones are not sent within this test.
    await t.app.inject({
      method: 'DELETE',
      url: `/api/message-jobs-details/${jobId}`,
      headers: bearer(a.token),
    });
  });

  it('refuses what a Cloud account cannot send: an unapproved template, wrong values, groups, a template through a phone', async () => {
    const a = await cloudAccount(10);
    const send = (payload: unknown, path = 'sendIndividualMessage') =>
      post(a.token, `/api/session/${a.sessionId}/${path}`, payload);
    const pending = await send({
      type: 'template',
      content: { name: 'new_launch', language: 'en', parameters: [] },
      chatIds: ['919811100021'],
    });
    expect(pending.json()).toMatchObject({
      success: false,
      message: 'Template new_launch is PENDING: only APPROVED templates can be sent',
    });
    const count = await send({
      type: 'template',
      content: { name: 'diwali_offer', language: 'en', parameters: ['x'] },
      chatIds: ['919811100021'],
    });
    expect(count.json().message).toBe('Template diwali_offer has 2 variables; 1 value was given');
    const unknown = await send({
      type: 'template',
      content: { name: 'nope', language: 'en', parameters: [] },
      chatIds: ['919811100021'],
    });
    expect(unknown.json().message).toBe('No approved template nope (en) on this account');
    const groups = await send({ content: 'hi', chatIds: ['120363000000000001@g.us'] }, 'sendBulkMessage');
    expect(groups.statusCode).toBe(400);
    expect(groups.json().message).toBe('Groups are available for linked phones only');
    const groupList = await t.app.inject({
      method: 'GET',
      url: `/api/groupsList/${a.sessionId}`,
      headers: bearer(a.token),
    });
    expect(groupList.statusCode).toBe(400);
    expect(groupList.json().message).toBe('Groups are available for linked phones only');
    const poll = await send({
      type: 'poll',
      content: { pollName: 'Q', pollOptions: ['a', 'b'] },
      chatIds: ['919811100021'],
    });
    expect(poll.json().message).toBe('A Cloud API account sends approved templates: choose a template');
    expect(await balanceOf(t.db, a.user.id)).toBe(10);
    expect(await t.db.select().from(messageJobs).where(eq(messageJobs.userId, a.user.id))).toEqual([]);
  });

  it('shows the cost before sending', async () => {
    const a = await cloudAccount(10);
    const res = await post(a.token, `/api/session/${a.sessionId}/cost-estimate`, {
      templateName: 'diwali_offer',
      language: 'en',
      recipients: 100,
    });
    expect(res.json()).toMatchObject({
      success: true,
      category: 'marketing',
      costUnits: 863_100,
      text: "≈ ₹86.31 at Meta's marketing rate for 100 recipients",
      now: 100,
      waiting: 0,
      tierText: null,
    });
    const many = await post(a.token, `/api/session/${a.sessionId}/cost-estimate`, {
      templateName: 'order_update',
      language: 'en_US',
      recipients: 2300,
    });
    expect(many.json()).toMatchObject({
      text: "≈ ₹264.50 at Meta's utility rate for 2,300 recipients",
      now: 2000,
      waiting: 300,
      tierText: '2,000 now, 300 wait for the 24-hour limit to free up',
    });
  });

  it('goes DISCONNECTED with Meta’s reason when the token stops working, and counts an inbound reply', async () => {
    const a = await cloudAccount(10);
    const res = await post(a.token, `/api/session/${a.sessionId}/sendIndividualMessage`, {
      type: 'template',
      content: { name: 'order_update', language: 'en_US', parameters: ['A-7'] },
      chatIds: ['919811100031'],
    });
    const jobId = res.json().jobId as string;
    await waitFor('delivered', async () => (await jobRow(t.db, jobId))?.deliveredCount === 1);
    fake.sendInbound('919811100031', 'Thanks, got it');
    await waitFor(
      'the reply',
      async () => (await recipientsOf(t.db, jobId))[0]?.replyText === 'Thanks, got it',
    );
    expect((await jobRow(t.db, jobId))?.repliedCount).toBe(1);

    fake.rotateToken();
    const next = await post(a.token, `/api/session/${a.sessionId}/sendIndividualMessage`, {
      type: 'template',
      content: { name: 'order_update', language: 'en_US', parameters: ['A-8'] },
      chatIds: ['919811100032'],
    });
    expect(next.statusCode).toBe(200);
    const session = await waitFor('disconnected', async () => {
      const list = await t.app.inject({ method: 'GET', url: '/api/sessions', headers: bearer(a.token) });
      const s = list.json().sessions[0];
      return s?.status === 'DISCONNECTED' ? s : null;
    });
    expect(session.statusReason).toMatch(/^Meta: Error validating access token/);
    // Nothing was sent: the recipient waits for the account, its credit reserved.
    const [r] = await recipientsOf(t.db, next.json().jobId);
    expect(r!.status).toBe('queued');
    await t.app.inject({
      method: 'DELETE',
      url: `/api/message-jobs-details/${next.json().jobId}`,
      headers: bearer(a.token),
    });
  });
});

/** An inbound text as the text messages webhook reference lays it out. */
function inbound(fake: FakeGraphApi, from: string, text: string) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: fake.wabaId,
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '919800015838', phone_number_id: fake.phoneNumberId },
              contacts: [{ profile: { name: 'Asha' }, wa_id: from }],
              messages: [
                {
                  from,
                  id: `wamid.in.${from}`,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  type: 'text',
                  text: { body: text },
                },
              ],
            },
          },
        ],
      },
    ],
  };
}
