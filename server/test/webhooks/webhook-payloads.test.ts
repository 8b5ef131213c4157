import { chatIdOfPhone, WEBHOOK_PAYLOADS, type WebhookEventName } from '@wa/contract';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '../../src/db/schema.ts';
import { readsMessages } from '../../src/transport/simulator/network.ts';
import { confirmsDelivery } from '../../src/transport/simulator/numbers.ts';
import { SIMULATOR_TIMINGS } from '../../src/transport/simulator/transport.ts';
import { waitForJobEnd } from '../fakes/messaging.ts';
import { webhookEngine } from '../fakes/webhook-receiver.ts';
import { bearer, DB_KINDS } from '../helpers.ts';
import { waitFor } from '../wait.ts';

/**
 * Every webhook event, made through the product (the account runner, the dispatcher, the
 * simulator's receipts and the opt-out API), as the database stores it: each `data` is what
 * contract/webhook-events.ts says a receiver gets. Most payloads are built by the plpgsql triggers
 * of server/drizzle (0006, 0021); this test is where a change there meets the contract.
 */
describe.each(DB_KINDS)('webhook payloads match the contract on %s', (kind) => {
  const timings = { ...SIMULATOR_TIMINGS };
  beforeAll(() => {
    // Receipts sooner, so that delivered and read arrive within the test.
    SIMULATOR_TIMINGS.deliveredMs = 50;
    SIMULATOR_TIMINGS.readMs = 100;
  });
  afterAll(() => {
    Object.assign(SIMULATOR_TIMINGS, timings);
  });
  const { t, subscriber } = webhookEngine(kind);

  it('stores job.finished, message.status (sent, failed, delivered, read), session.status and optout as the contract says', async () => {
    const { token, webhook, accountId, groups } = await subscriber(
      ['job.finished', 'message.status', 'session.status', 'optout'],
      '919700000002',
    );
    const webhookId = webhook.id;
    const announce = groups.find((g) => g.announce && !g.isAdmin)!;
    const open = groups.filter((g) => !g.announce).slice(0, 2);
    const send = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendBulkMessage`,
      headers: bearer(token),
      payload: { chatIds: [...open.map((g) => g.groupId), announce.groupId], type: 'string', content: 'Hi' },
    });
    expect(send.statusCode).toBe(200);
    const job = await waitForJobEnd(t.app, token, send.json().jobId as string);
    expect(job.results).toMatchObject({ success: 2, failed: 1 });

    // A person's chat that the simulated network reads (network.ts readsMessages) and whose phone
    // confirms delivery (numbers.ts: not one ending 0001): a read receipt comes. The first such
    // number was 919800020001, which never confirms: 'read' then came only when a random group read.
    let reader = 919800020000;
    const reads = (n: number) =>
      readsMessages(chatIdOfPhone(String(n))) && confirmsDelivery(chatIdOfPhone(String(n)));
    while (!reads(reader)) reader++;
    const direct = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(token),
      payload: { chatIds: [String(reader)], type: 'string', content: 'Hi' },
    });
    expect(direct.statusCode).toBe(200);
    await waitForJobEnd(t.app, token, direct.json().jobId as string);

    const optOut = await t.app.inject({
      method: 'POST',
      url: '/api/opt-outs',
      headers: bearer(token),
      payload: { phoneNumbers: ['+91 98000 15838'] },
    });
    expect(optOut.statusCode).toBe(200);

    const stored = () =>
      t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId));
    const statuses = (rows: Awaited<ReturnType<typeof stored>>) =>
      new Set(
        rows.filter((r) => r.event === 'message.status').map((r) => (r.data as { status: string }).status),
      );
    const rows = await waitFor('every event stored', async () => {
      const all = await stored();
      const seen = statuses(all);
      const events = new Set(all.map((r) => r.event));
      return ['sent', 'failed', 'delivered', 'read'].every((s) => seen.has(s)) && events.size === 4
        ? all
        : null;
    });

    for (const row of rows) {
      const parsed = WEBHOOK_PAYLOADS[row.event as WebhookEventName].safeParse(row.data);
      expect(parsed.error?.issues ?? [], `${row.event}: ${JSON.stringify(row.data)}`).toEqual([]);
    }
    // The values, not only the shapes.
    // Two jobs finished (the groups' and the person's): the groups' one, by its id.
    expect(
      rows.find((r) => r.event === 'job.finished' && (r.data as { jobId: string }).jobId === job.id)?.data,
    ).toMatchObject({
      jobId: job.id,
      sessionId: accountId,
      status: 'failed',
      total: 3,
      sent: 2,
      failed: 1,
      cancelled: 0,
    });
    expect(rows.find((r) => r.event === 'optout')?.data).toMatchObject({
      phone: '919800015838',
      source: 'manual',
    });
    expect(
      rows.some(
        (r) =>
          r.event === 'session.status' &&
          (r.data as { sessionId: string; status: string }).sessionId === accountId &&
          (r.data as { status: string }).status === 'CONNECTED',
      ),
    ).toBe(true);
    const failed = rows.find(
      (r) => r.event === 'message.status' && (r.data as { status: string }).status === 'failed',
    );
    expect(failed?.data).toMatchObject({ chatId: announce.groupId, error: expect.stringMatching(/admins/i) });
  });

  it('refuses a payload that lost a key, and keeps keys it does not know', () => {
    const sent = {
      jobId: 'j',
      recipientId: '1',
      chatId: '919800015838@s.whatsapp.net',
      status: 'sent',
      error: null,
      at: '2026-11-25T10:00:00.000Z',
    };
    expect(WEBHOOK_PAYLOADS['message.status'].parse({ ...sent, delivery: 'pending' })).toMatchObject({
      delivery: 'pending',
    });
    const { chatId: _chatId, ...withoutChat } = sent;
    expect(WEBHOOK_PAYLOADS['message.status'].safeParse(withoutChat).success).toBe(false);
  });
});
