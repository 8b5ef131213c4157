import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog, creditLedger } from '../../src/db/schema.ts';
import { postSignedWebhook, useCloudApp } from '../fakes/cloud-rig.ts';
import { messagesEnvelope, statusesOf } from '../fakes/graph-api-payloads.ts';
import { balanceOf, jobRow, recipientsOf } from '../fakes/messaging.ts';
import { DB_KINDS } from '../helpers.ts';
import { waitFor } from '../wait.ts';
import { recordFigure } from './support/figures.ts';

const RECIPIENTS = 40;

/**
 * A Cloud account's owner knows the app secret, so they can sign any status for their own
 * messages. A campaign delivered and read, then every message "failed" by forged, signed
 * webhooks (each twice, and a stale "sent" after them): nothing may move backwards and no credit
 * may come back. Then the same for messages Meta only took (no receipts): a late failure is kept
 * and refunded, once per recipient, each refund in the audit log.
 */
describe.each(DB_KINDS)('forged Cloud statuses on %s', (kind) => {
  const rig = useCloudApp(kind);
  const section = `forged statuses (${kind})`;

  async function post(accountId: string, statuses: Record<string, unknown>[]) {
    const { t, fake } = rig;
    const body = JSON.stringify(
      messagesEnvelope(fake.wabaId, { id: fake.phoneNumberId, display: '919800015838' }, { statuses }),
    );
    const res = await postSignedWebhook(t, accountId, body, fake.appSecret);
    expect(res.statusCode, res.body).toBe(200);
  }

  async function campaign(a: { token: string }, accountId: string, from: number) {
    const chatIds = Array.from({ length: RECIPIENTS }, (_, i) => String(919_822_300_000 + from + i));
    const res = await rig.post(a.token, `/api/session/${accountId}/sendIndividualMessage`, {
      type: 'template',
      content: { name: 'order_update', language: 'en_US', parameters: ['A-1001'] },
      chatIds,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().jobId as string;
  }

  /** Each recipient's forged statuses: failed twice, then sent again. */
  const forged = (r: { messageId: string | null; chatId: string }) => {
    const at = Math.floor(Date.now() / 1000);
    const to = r.chatId.replace(/\D/g, '');
    const [failed] = statusesOf({ id: r.messageId!, to, category: 'utility' }, 131026, at, false);
    const [sent] = statusesOf({ id: r.messageId!, to, category: 'utility' }, null, at, false);
    return [failed!, failed!, sent!];
  };

  it('delivered and read messages: forged failures change nothing and refund nothing', async () => {
    const { t } = rig;
    const a = await rig.cloudAccount(RECIPIENTS);
    const jobId = await campaign(a, a.accountId, 0);
    await waitFor('every recipient read', async () => {
      const rs = await recipientsOf(t.db, jobId);
      return (
        rs.length === RECIPIENTS &&
        rs.every((r) => r.readAt) &&
        (await jobRow(t.db, jobId))?.status === 'completed'
      );
    });
    const before = await recipientsOf(t.db, jobId);
    const balance = await balanceOf(t.db, a.user.id);
    for (const r of before) await post(a.accountId, forged(r));

    const after = await recipientsOf(t.db, jobId);
    const movedBack = after.filter(
      (r, i) => r.status !== 'sent' || r.readAt?.getTime() !== before[i]!.readAt?.getTime(),
    );
    const refunded = (await balanceOf(t.db, a.user.id)) - balance;
    const job = await jobRow(t.db, jobId);
    recordFigure(
      section,
      'forged failed statuses posted for read messages (each twice, then a sent)',
      RECIPIENTS * 3,
    );
    recordFigure(section, 'read recipients moved backwards', movedBack.length, true);
    recordFigure(section, 'credits refunded by forged statuses', refunded, true);
    recordFigure(section, 'job counted failures after forged statuses', job!.failedCount, true);
    expect(movedBack).toEqual([]);
    expect(refunded).toBe(0);
    expect(job!.failedCount).toBe(0);
  });

  it('messages Meta only took: a late failure is refunded once per recipient, each refund audited', async () => {
    const { t, fake } = rig;
    const a = await rig.cloudAccount(RECIPIENTS);
    // Meta takes the sends and says nothing more (the phones are off): no delivered, no read.
    fake.state.webhook = undefined;
    const jobId = await campaign(a, a.accountId, 1000);
    await waitFor('every recipient sent', async () =>
      (await recipientsOf(t.db, jobId)).every((r) => r.status === 'sent'),
    );
    const sent = await recipientsOf(t.db, jobId);
    const balance = await balanceOf(t.db, a.user.id);
    for (const r of sent) await post(a.accountId, forged(r));

    const refunded = (await balanceOf(t.db, a.user.id)) - balance;
    const refundRows = await t.db
      .select()
      .from(creditLedger)
      .where(and(eq(creditLedger.userId, a.user.id), eq(creditLedger.reason, 'refund')));
    const audited = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetUserId, a.user.id), eq(auditLog.action, 'credits.webhook-refund')));
    const failed = (await recipientsOf(t.db, jobId)).filter((r) => r.status === 'failed').length;
    recordFigure(section, 'late failures after a sent without receipts (each posted twice)', failed);
    recordFigure(section, 'credits refunded beyond one per recipient', refunded - RECIPIENTS, true);
    recordFigure(section, 'webhook refunds not in the audit log', refunded - audited.length, true);
    expect(failed).toBe(RECIPIENTS);
    expect(refunded).toBe(RECIPIENTS);
    expect(audited).toHaveLength(RECIPIENTS);
    expect(refundRows.reduce((n, r) => n + r.delta, 0)).toBe(RECIPIENTS);
  });
});
