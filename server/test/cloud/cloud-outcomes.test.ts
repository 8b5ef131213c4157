import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog, creditLedger, optOuts, users } from '../../src/db/schema.ts';
import { postSignedWebhook, useCloudApp } from '../fakes/cloud-rig.ts';
import { inboundTextBody, messagesEnvelope, statusesOf } from '../fakes/graph-api-payloads.ts';
import { balanceOf, jobRow, recipientsOf } from '../fakes/messaging.ts';
import { DB_KINDS } from '../helpers.ts';
import { waitFor } from '../wait.ts';

/** A Cloud status never moves a recipient backwards, and what a webhook refunds is audited. */
describe.each(DB_KINDS)('Cloud statuses in order on %s', (kind) => {
  const rig = useCloudApp(kind);

  /** Posts one status for `messageId`, signed with the account's app secret as its owner could. */
  async function signedStatus(accountId: string, status: Record<string, unknown>) {
    const { t, fake } = rig;
    const body = JSON.stringify(
      messagesEnvelope(
        fake.wabaId,
        { id: fake.phoneNumberId, display: '919800015838' },
        { statuses: [status] },
      ),
    );
    return postSignedWebhook(t, accountId, body, fake.appSecret);
  }

  async function sendOne(a: { token: string; accountId: string }, chatId: string) {
    const res = await rig.post(a.token, `/api/session/${a.accountId}/sendIndividualMessage`, {
      type: 'template',
      content: { name: 'order_update', language: 'en_US', parameters: ['A-1001'] },
      chatIds: [chatId],
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().jobId as string;
  }

  const failedStatus = (messageId: string, to: string) =>
    statusesOf({ id: messageId, to, category: 'utility' }, 131026, Math.floor(Date.now() / 1000), false)[0]!;

  it('a signed failed status for a message delivered and read changes nothing and refunds nothing', async () => {
    const { t } = rig;
    const a = await rig.cloudAccount(10);
    const jobId = await sendOne(a, '919811100021');
    await waitFor('delivered and read', async () => {
      const [r] = await recipientsOf(t.db, jobId);
      const job = await jobRow(t.db, jobId);
      return r?.readAt && job?.status === 'completed';
    });
    const [before] = await recipientsOf(t.db, jobId);
    const jobBefore = await jobRow(t.db, jobId);
    const balance = await balanceOf(t.db, a.user.id);

    const res = await signedStatus(a.accountId, failedStatus(before!.messageId!, '919811100021'));
    expect(res.statusCode).toBe(200);

    const [after] = await recipientsOf(t.db, jobId);
    expect(after).toMatchObject({ status: 'sent', error: null });
    expect(after!.deliveredAt).toEqual(before!.deliveredAt);
    expect(after!.readAt).toEqual(before!.readAt);
    expect(await jobRow(t.db, jobId)).toMatchObject({
      status: jobBefore!.status,
      sentCount: 1,
      failedCount: 0,
    });
    expect(await balanceOf(t.db, a.user.id)).toBe(balance);
    const refunds = await t.db.select().from(creditLedger).where(eq(creditLedger.userId, a.user.id));
    expect(refunds.filter((l) => l.reason === 'refund')).toEqual([]);
  });

  it('a late failure after a sent without receipts is kept, refunded, and the refund is audited', async () => {
    const { t, fake } = rig;
    const a = await rig.cloudAccount(10);
    // Meta accepts the send and says nothing more (the phone is off): no delivered, no read.
    fake.state.webhook = undefined;
    const jobId = await sendOne(a, '919811100022');
    await waitFor('sent', async () => (await recipientsOf(t.db, jobId))[0]?.status === 'sent');
    const [sent] = await recipientsOf(t.db, jobId);
    const balance = await balanceOf(t.db, a.user.id);

    const res = await signedStatus(a.accountId, failedStatus(sent!.messageId!, '919811100022'));
    expect(res.statusCode).toBe(200);

    expect((await recipientsOf(t.db, jobId))[0]).toMatchObject({
      status: 'failed',
      error: 'Message undeliverable',
    });
    expect(await balanceOf(t.db, a.user.id)).toBe(balance + 1);
    const audit = await t.db.select().from(auditLog).where(eq(auditLog.targetUserId, a.user.id));
    const refunds = audit.filter((l) => l.action === 'credits.webhook-refund');
    expect(refunds).toHaveLength(1);
    expect(refunds[0]!.details).toMatchObject({
      sessionId: a.accountId,
      messageId: sent!.messageId,
      jobId,
      credits: 1,
      reason: 'Message undeliverable',
    });
  });
});

/** What a person writes to a Cloud API number takes the same road as on a linked phone. */
describe.each(DB_KINDS)('A Cloud API number’s incoming messages on %s', (kind) => {
  const rig = useCloudApp(kind);

  it('a STOP opts the number out and, with the confirmation on, is answered once as on a linked phone', async () => {
    const { t, fake } = rig;
    const a = await rig.cloudAccount(10);
    await t.db.update(users).set({ optOutConfirm: true }).where(eq(users.id, a.user.id));
    const from = '919811100031';
    const stop = (id: string) => inboundTextBody(fake, from, id, 'STOP');
    for (const id of ['wamid.in.1', 'wamid.in.2']) {
      const body = stop(id);
      const res = await postSignedWebhook(t, a.accountId, body, fake.appSecret);
      expect(res.statusCode).toBe(200);
    }
    const out = await t.db.select().from(optOuts).where(eq(optOuts.userId, a.user.id));
    expect(out.map((o) => [o.phoneNumber, o.source])).toEqual([[from, 'reply']]);
    // One answer, to the number that wrote, inside the window its message opened; none for the repeat.
    expect(fake.sends.filter((s) => s.to === from).map((s) => [s.body.type, s.body.text?.body])).toEqual([
      ['text', 'You will not receive more messages from us.'],
    ]);
  });
});
