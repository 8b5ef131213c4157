import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { optOuts } from '../../src/db/schema.ts';
import { useCloudApp } from '../fakes/cloud-rig.ts';
import { inboundTextBody, signature } from '../fakes/graph-api-payloads.ts';
import { balanceOf, jobRow, recipientsOf } from '../fakes/messaging.ts';
import { bearer, DB_KINDS } from '../helpers.ts';
import { waitFor } from '../wait.ts';

/** What Meta tells a Cloud API account: the webhook's verification and signatures, and the error codes of its sends. */
describe.each(DB_KINDS)('A Cloud API account’s webhooks and Meta’s errors on %s', (kind) => {
  const rig = useCloudApp(kind);

  it('answers Meta’s verification with the account’s verify token only, and refuses unsigned events', async () => {
    const { t, fake, cloudAccount } = rig;
    const a = await cloudAccount();
    const url = `/api/cloud/webhook/${a.accountId}`;
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
    const from = '919811122233';
    const body = inboundTextBody(fake, from, `wamid.in.${from}`, 'STOP');
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

  // Once a flake: the 131049 that came by webhook before the send's own record left its recipient
  // 'sent'. The webhook now re-applies the step while the row is still 'sent', or answers 503 so
  // that Meta sends it again (messaging/cloud/webhook.ts); no retry here.
  it('maps Meta’s errors: 131026 and 131047 fail with Meta’s title (refunded), 131049 waits a day', async () => {
    const { t, fake, post, cloudAccount } = rig;
    const a = await cloudAccount(10);
    fake.state.recipientErrors = {
      '919811100011': { code: 131026, via: 'webhook' },
      '919811100012': { code: 131047, via: 'response' },
      '919811100013': { code: 131049, via: 'response' },
      '919811100014': { code: 131049, via: 'webhook' },
    };
    const res = await post(a.token, `/api/session/${a.accountId}/sendIndividualMessage`, {
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
        m.get('919811100015')?.deliveredAt &&
        // The status's pricing is written after its receipt (messaging/outcomes.ts).
        m.get('919811100015')?.costUnits != null
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
});
