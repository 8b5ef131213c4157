import crypto from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { type Db, queryRows } from '../../src/db/client.ts';
import { messageJobRecipients, waChannels, waSentMessages, webhooks } from '../../src/db/schema.ts';
import { acceptSend } from '../../src/messaging/accept/send.ts';
import {
  markNewAccounts,
  reply,
  sentAfterAllByCopies,
  undeliver,
} from '../../src/messaging/engine/delivery.ts';
import { applyReceipts } from '../../src/messaging/engine/receipts.ts';
import { refuse } from '../../src/messaging/engine/refusals.ts';
import { createDispatchStore } from '../../src/messaging/engine/store.ts';
import { DISPATCH_MESSAGES, UNDELIVERED_REASONS } from '../../src/messaging/messages.ts';
import { findUserById } from '../../src/users/repository.ts';
import {
  balanceOf,
  buildAccount,
  expectLedgerChain,
  jobRow,
  recipientsOf,
  waitForJobEnd,
} from '../fakes/messaging.ts';
import { appWithEngine, bearer, buildUser, DB_KINDS, linkedAccount, testAppFor } from '../helpers.ts';
import { waitFor } from '../wait.ts';

type Delivery = { delivered: number; read: number; replied: number; undelivered: number };
type Detail = {
  chatId: string;
  status: string;
  sentAt: string | null;
  deliveredAt: string | null;
  repliedAt: string | null;
  replyText: string | null;
  undeliveredAt: string | null;
  undeliveredReason: string | null;
};

/** Undelivered, replies and sends answered after their time-out. */
describe.each(DB_KINDS)('delivery truth through the simulator and the engine (%s)', (kind) => {
  const users = new Set<string>();
  // A message with no receipt 1.5 s after its send is undelivered (24 h by default).
  const { t } = appWithEngine(kind, { UNDELIVERED_AFTER_MS: '1500', SIMULATOR_GROUPS: '0' }, users);

  const details = async (token: string, jobId: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/message-jobs-details/${jobId}?media=0`,
      headers: bearer(token),
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().job as { delivery: Delivery; results: { success: number }; details: Detail[] };
  };
  const byNumber = (list: Detail[], n: string) => list.find((d) => d.chatId.startsWith(n))!;

  it('a number whose phone never confirms goes undelivered; a reply marks its recipient replied; the list, details, CSV and webhooks say so', async () => {
    const { user, token, accountId } = await linkedAccount(t, { credits: 10, track: users });
    await t.db.insert(webhooks).values({
      id: crypto.randomUUID(),
      userId: user.id,
      url: 'https://receiver.example/events',
      events: ['message.status'],
      secret: 'not used',
    });
    const send = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(token),
      payload: { chatIds: ['919812360001', '919812360002', '919812360000'], content: 'Sale today' },
    });
    expect(send.statusCode, send.body).toBe(200);
    const jobId = send.json().jobId as string;
    await waitForJobEnd(t.app, token, jobId);

    // 0002 is delivered after about a second; 0001 never is, and is undelivered 1.5 s after its send.
    const job = await waitFor('the receipts and the undelivered sweep', async () => {
      const j = await details(token, jobId);
      return j.delivery.delivered === 1 && j.delivery.undelivered === 1 ? j : null;
    });
    expect(job.results.success).toBe(2);
    expect(job.delivery.replied).toBe(0);
    const silent = byNumber(job.details, '919812360001');
    expect(silent.status).toBe('sent');
    expect(silent.deliveredAt).toBeNull();
    expect(new Date(silent.undeliveredAt!).getTime()).toBeGreaterThanOrEqual(
      new Date(silent.sentAt!).getTime() + 1500,
    );
    expect(silent.undeliveredReason).toBeNull();
    expect(byNumber(job.details, '919812360002').undeliveredAt).toBeNull();

    // The contact writes back: the send is replied, with the text.
    const inbound = (from: string, text: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/simulator/sessions/${accountId}/inbound`,
        headers: bearer(token),
        payload: { from, text },
      });
    expect((await inbound('+91 98123 60002', 'Is it on till Sunday?')).statusCode).toBe(200);
    const replied = await waitFor('the reply', async () => {
      const j = await details(token, jobId);
      return j.delivery.replied === 1 ? j : null;
    });
    const d = byNumber(replied.details, '919812360002');
    expect(d.replyText).toBe('Is it on till Sunday?');
    expect(d.repliedAt).not.toBeNull();
    // A second message of the same contact keeps the first reply.
    expect((await inbound('919812360002', 'Hello?')).statusCode).toBe(200);
    // STOP still opts out, and counts as the reply of the number that never confirmed.
    expect((await inbound('919812360001', 'STOP')).statusCode).toBe(200);
    const after = await waitFor('the STOP reply', async () => {
      const j = await details(token, jobId);
      return j.delivery.replied === 2 ? j : null;
    });
    expect(byNumber(after.details, '919812360002').replyText).toBe('Is it on till Sunday?');
    expect(byNumber(after.details, '919812360001').replyText).toBe('STOP');
    // The reply and the opt-out are two writes of one incoming message (messaging/outcomes.ts),
    // neither waiting for the other: the list is read once it has the number.
    const optOuts = await waitFor('the opt-out', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/opt-outs', headers: bearer(token) });
      const list = res.json().optOuts as { phoneNumber: string }[];
      return list.length > 0 ? list : null;
    });
    expect(optOuts.map((o) => o.phoneNumber)).toEqual(['919812360001']);

    // The jobs list carries the same figures, and so does the job's row.
    const list = await t.app.inject({
      method: 'GET',
      url: `/api/message-jobs/${user.id}`,
      headers: bearer(token),
    });
    const listed = list.json().jobs.find((j: { id: string }) => j.id === jobId);
    expect(listed.delivery).toEqual({ delivered: 1, read: expect.any(Number), replied: 2, undelivered: 1 });
    const row = await jobRow(t.db, jobId);
    expect([row?.deliveredCount, row?.repliedCount, row?.undeliveredCount]).toEqual([1, 2, 1]);

    // mis_report.csv: Replied and Undelivered columns, and the rates of the sent messages in the totals.
    const csv = await t.app.inject({
      method: 'GET',
      url: `/api/message-jobs/${user.id}/export.csv`,
      headers: bearer(token),
    });
    const lines = csv.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toContain('Status,Delivered,Read,Replied,Undelivered,Content');
    // Two sent, one failed: 'Partly sent', the word Message Jobs shows.
    expect(lines[1]).toMatch(/,Partly sent,1,\d,2,1,Sale today,,$/);
    expect(lines.at(-1)).toContain(',1 (50.0%),');
    expect(lines.at(-1)).toContain(',2 (100.0%),1 (50.0%),');

    // message.status webhooks: replied (with the text) and undelivered, beside sent and delivered.
    const events = await queryRows<{ status: string; chat: string; reply: string | null }>(
      t.db,
      sql`SELECT data->>'status' AS status, data->>'chatId' AS chat, data->>'reply' AS reply
          FROM webhook_deliveries WHERE data->>'jobId' = ${jobId} ORDER BY id`,
    );
    const of = (status: string) => events.filter((e) => e.status === status);
    expect(of('undelivered').map((e) => e.chat)).toEqual(['919812360001@s.whatsapp.net']);
    expect(of('replied').map((e) => [e.chat, e.reply])).toEqual([
      ['919812360002@s.whatsapp.net', 'Is it on till Sunday?'],
      ['919812360001@s.whatsapp.net', 'STOP'],
    ]);
    expect(of('delivered').map((e) => e.chat)).toEqual(['919812360002@s.whatsapp.net']);
  });
});

describe.each(DB_KINDS)('a send answered after its time-out (%s)', (kind) => {
  // Each send takes 1.5 s; the engine gives up after 1 s: failed 'delivery unknown', refunded.
  const { t } = appWithEngine(kind, {
    SEND_TIMEOUT_MS: '1000',
    SIMULATOR_SEND_LATENCY_MS: '1500',
    SIMULATOR_GROUPS: '0',
  });

  it('becomes sent when the transport answers, its refund reversed; its receipt then applies', async () => {
    const { user, token, accountId } = await linkedAccount(t, { credits: 5 });
    const send = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(token),
      payload: { chatIds: ['919812370002'], content: 'Slow network' },
    });
    expect(send.statusCode, send.body).toBe(200);
    const jobId = send.json().jobId as string;
    const failed = await waitForJobEnd(t.app, token, jobId);
    expect(failed.status).toBe('failed');
    expect(await balanceOf(t.db, user.id)).toBe(5);

    const done = await waitFor('the late answer and its receipt', async () => {
      const [r] = await recipientsOf(t.db, jobId);
      return r?.status === 'sent' && r.deliveredAt ? r : null;
    });
    expect(done.error).toBeNull();
    expect(done.messageId).toMatch(/^3EB0/);
    const ledger = await expectSentAfterAll(t.db, jobId, user.id, 5);
    expect(ledger.at(-1)?.note).toBe('Sent after all: refund reversed');
  });
});

describe.each(DB_KINDS)('delivery transitions (%s)', (kind) => {
  const t = testAppFor(kind);

  /** A job to `chats` of a user with `credits` (or of `on`), accepted; and this node's store. */
  async function acceptedJob(
    chats: string[],
    credits: number,
    on?: { user: { id: string }; sessionId: string },
  ) {
    const user = on?.user ?? (await buildUser(t, { credits }));
    const row = (await findUserById(t.db, user.id))!;
    const accountId = on?.sessionId ?? (await buildAccount(t, user.id));
    const { jobId } = await acceptSend(
      t.ctx,
      row,
      accountId,
      { chatIds: chats, content: 'Hi' },
      'individuals',
    );
    return {
      user,
      sessionId: accountId,
      jobId: jobId!,
      store: createDispatchStore(t.db, t.ctx.nodeId, 60_000),
    };
  }

  /** A user's job to `chats`, each recipient claimed and recorded sent by the store; returns them. */
  async function sentJob(chats: string[], on?: { user: { id: string }; sessionId: string }) {
    const job = await acceptedJob(chats, 10, on);
    const sent: Array<{ id: number; messageId: string }> = [];
    for (const _ of chats) {
      const [c] = await job.store.claim(job.sessionId, 1);
      const messageId = `3EB0${crypto.randomBytes(8).toString('hex').toUpperCase()}`;
      await job.store.recordSent(c!.id, { messageId });
      sent.push({ id: c!.id, messageId });
    }
    return { ...job, sent };
  }

  /** The recipients `ids` were sent `interval` ago. */
  async function sentAgo(ids: number[], interval: string) {
    await t.db.execute(
      sql`UPDATE message_job_recipients SET sent_at = now() - ${interval}::interval
          WHERE id = ANY(${sql.param(ids)}::bigint[])`,
    );
  }

  /**
   * The engine claims the next recipient of `sessionId` and gives up on its send (failed 'delivery
   * unknown'), after the transport kept its copy as `messageId` to `chat`, `copiedAgoMs` ago.
   */
  async function timedOutWithCopy(
    store: ReturnType<typeof createDispatchStore>,
    accountId: string,
    chat: string,
    messageId: string,
    copiedAgoMs: number,
  ) {
    const [c] = await store.claim(accountId, 1);
    await t.db.insert(waSentMessages).values({
      accountId,
      messageId,
      chatId: `${chat}@s.whatsapp.net`,
      message: '{}',
      createdAt: new Date(Date.now() - copiedAgoMs),
    });
    await store.fail(c!.id, DISPATCH_MESSAGES.sendTimedOut);
    return c!;
  }

  it('the sweep makes undelivered the sends past the deadline with no receipt, each once: not those with a receipt or a late failure', async () => {
    const {
      sessionId: accountId,
      jobId,
      store,
      sent,
    } = await sentJob(['917600000001', '917600000002', '917600000003', '917600000004', '917600000005']);
    const ids = sent.map((s) => s.id);
    // A delivery receipt, and a read receipt alone (the delivery implied).
    await applyReceipts(t.db, [
      { accountId, messageId: sent[0]!.messageId, status: 'delivered', at: new Date() },
      { accountId, messageId: sent[1]!.messageId, status: 'read', at: new Date() },
    ]);
    // WhatsApp refused one after the send (a late error status).
    expect(await refuse(t.db, accountId, sent[3]!.messageId, 'Send failed: refused', 10)).toBe(true);
    await sentAgo(ids.slice(0, 4), '2 hours');
    // The fifth, sent a moment ago, is not past the deadline yet.
    expect(await store.markUndelivered(3_600_000)).toBe(1);
    expect(await store.markUndelivered(3_600_000)).toBe(0);
    // Its deadline passes: the sweep reads on from where it stopped.
    await sentAgo([ids[4]!], '90 minutes');
    expect(await store.markUndelivered(3_600_000)).toBe(1);
    expect(await store.markUndelivered(3_600_000)).toBe(0);
    const rows = await recipientsOf(t.db, jobId);
    expect(rows.map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'failed', 'sent']);
    expect(rows.map((r) => r.undeliveredAt !== null)).toEqual([false, false, true, false, true]);
    expect((await jobRow(t.db, jobId))?.undeliveredCount).toBe(2);
  });

  it('the sweep reads an account’s sends of one instant together, more than a batch, and then the rest', async () => {
    const chats = Array.from({ length: 7 }, (_, i) => `91770000000${i + 1}`);
    const { jobId, sent } = await sentJob(chats);
    // Five sent at one instant (as a Status post's are), two later; a batch of two.
    await t.db.execute(
      sql`UPDATE message_job_recipients SET sent_at = date_trunc('second', now()) - interval '3 hours'
          WHERE id = ANY(${sql.param(sent.slice(0, 5).map((s) => s.id))}::bigint[])`,
    );
    await sentAgo([sent[5]!.id], '2 hours');
    await sentAgo([sent[6]!.id], '90 minutes');
    await markNewAccounts(t.db);
    expect(await undeliver(t.db, 3_600_000, 2)).toEqual({ marked: 5, more: true });
    expect(await undeliver(t.db, 3_600_000, 2)).toEqual({ marked: 2, more: true });
    expect(await undeliver(t.db, 3_600_000, 2)).toEqual({ marked: 0, more: false });
    const rows = await recipientsOf(t.db, jobId);
    expect(rows.every((r) => r.undeliveredAt !== null)).toBe(true);
    expect((await jobRow(t.db, jobId))?.undeliveredCount).toBe(7);
  });

  it('a send found sent after all, at a time the sweep has read past, is still made undelivered without a receipt', async () => {
    const { sessionId: accountId, jobId, store } = await acceptedJob(['917800000001', '917800000002'], 3);
    const messageId = '3EB0EEEEFFFF00001111';
    // The transport kept its copy three hours ago and the engine gave up on the send.
    await timedOutWithCopy(store, accountId, '917800000001', messageId, 3 * 3_600_000);
    // The other was sent two hours ago and swept: the sweep has read the account past three hours ago.
    const [other] = await store.claim(accountId, 1);
    await store.recordSent(other!.id, { messageId: '3EB0EEEEFFFF00002222' });
    await sentAgo([other!.id], '2 hours');
    expect(await store.markUndelivered(3_600_000)).toBe(1);
    // WhatsApp acknowledges the first message after all (no delivery receipt): sent three hours ago.
    expect(await sentAfterAllByCopies(t.db, [{ accountId, messageId }])).toEqual([messageId]);
    expect(await store.markUndelivered(3_600_000)).toBe(1);
    const rows = await recipientsOf(t.db, jobId);
    expect(rows.map((r) => [r.status, r.undeliveredAt !== null])).toEqual([
      ['sent', true],
      ['sent', true],
    ]);
    expect((await jobRow(t.db, jobId))?.undeliveredCount).toBe(2);
  });

  it('a receipt changes no indexed column of its recipient (its update stays in place, HOT)', async () => {
    const indexes = await queryRows<{ def: string }>(
      t.db,
      sql`SELECT pg_get_indexdef(indexrelid) AS def FROM pg_index
          WHERE indrelid = 'message_job_recipients'::regclass`,
    );
    expect(indexes.length).toBeGreaterThan(5);
    // What applyReceipts writes (receipts.ts); undelivered_at stays null but for a late receipt.
    for (const column of ['delivered_at', 'read_at', 'undelivered_reason', 'updated_at'])
      expect(indexes.filter((i) => new RegExp(`\\b${column}\\b`).test(i.def))).toEqual([]);
  });

  it('undelivered once, even with two nodes sweeping at once; a late receipt makes it delivered and takes it off the count', async () => {
    const {
      sessionId: accountId,
      jobId,
      store,
      sent,
    } = await sentJob(['917100000001', '917100000002', '917100000003']);
    // Two were sent two hours ago; the third a moment ago.
    await sentAgo(
      sent.slice(0, 2).map((s) => s.id),
      '2 hours',
    );
    const other = createDispatchStore(t.db, 'another-node', 60_000);
    const [a, b] = await Promise.all([store.markUndelivered(3_600_000), other.markUndelivered(3_600_000)]);
    expect(a + b).toBe(2);
    expect(await store.markUndelivered(3_600_000)).toBe(0);
    expect((await jobRow(t.db, jobId))?.undeliveredCount).toBe(2);

    const left = await applyReceipts(t.db, [
      { accountId, messageId: sent[0]!.messageId, status: 'delivered', at: new Date() },
    ]);
    expect(left).toEqual([]);
    const job = await jobRow(t.db, jobId);
    expect([job?.deliveredCount, job?.undeliveredCount]).toEqual([1, 1]);
    const rows = await recipientsOf(t.db, jobId);
    expect(rows.map((r) => r.undeliveredAt !== null)).toEqual([false, true, false]);
    expect(rows[0]?.deliveredAt).not.toBeNull();
  });

  // PGlite has one connection: no other transaction can hold a row while the sweep runs.
  it.runIf(kind === 'postgres')(
    'a send another transaction holds is left for the next sweep, which reads again from it',
    async () => {
      const { jobId, store, sent } = await sentJob(['917900000001', '917900000002', '917900000003']);
      await sentAgo([sent[0]!.id], '3 hours');
      await sentAgo([sent[1]!.id], '2 hours');
      await sentAgo([sent[2]!.id], '90 minutes');
      // The second is held (as a receipt batch holds its rows) while the sweep runs.
      let release = () => {};
      const released = new Promise<void>((r) => {
        release = r;
      });
      let heldNow = () => {};
      const held = new Promise<void>((r) => {
        heldNow = r;
      });
      const holder = t.db.transaction(async (tx) => {
        await tx.execute(sql`SELECT id FROM message_job_recipients WHERE id = ${sent[1]!.id} FOR UPDATE`);
        heldNow();
        await released;
      });
      await held;
      expect(await store.markUndelivered(3_600_000)).toBe(2);
      let rows = await recipientsOf(t.db, jobId);
      expect(rows.map((r) => r.undeliveredAt !== null)).toEqual([true, false, true]);
      release();
      await holder;
      expect(await store.markUndelivered(3_600_000)).toBe(1);
      rows = await recipientsOf(t.db, jobId);
      expect(rows.map((r) => r.undeliveredAt !== null)).toEqual([true, true, true]);
      expect((await jobRow(t.db, jobId))?.undeliveredCount).toBe(3);
    },
  );

  it('leaves a Channel post alone (its followers send no receipts); the account’s other sends still become undelivered', async () => {
    const user = await buildUser(t, { credits: 10 });
    const accountId = await buildAccount(t, user.id);
    const channelId = '120363111222333444@newsletter';
    await t.db.insert(waChannels).values({ accountId, channelId, name: 'Daily Deals', role: 'OWNER' });
    const row = (await findUserById(t.db, user.id))!;
    const post = await acceptSend(t.ctx, row, accountId, { chatIds: [channelId], content: 'Hi' }, 'groups');
    const store = createDispatchStore(t.db, t.ctx.nodeId, 60_000);
    const [c] = await store.claim(accountId, 1);
    expect(c?.chatId).toBe(channelId);
    await store.recordSent(c!.id, { messageId: '3EB0CC00DD11EE22FF33' });
    const { jobId, sent } = await sentJob(['917300000001'], { user, sessionId: accountId });
    await sentAgo([c!.id, sent[0]!.id], '2 hours');
    expect(await store.markUndelivered(3_600_000)).toBe(1);
    expect(await store.markUndelivered(3_600_000)).toBe(0);
    const [posted] = await recipientsOf(t.db, post.jobId!);
    expect([posted?.status, posted?.undeliveredAt]).toEqual(['sent', null]);
    expect((await jobRow(t.db, post.jobId!))?.undeliveredCount).toBe(0);
    expect((await recipientsOf(t.db, jobId))[0]?.undeliveredAt).not.toBeNull();
  });

  it('names 463 as the cause when the account’s new chats are restricted at the deadline', async () => {
    const { sessionId: accountId, jobId, store, sent } = await sentJob(['917200000001']);
    await sentAgo([sent[0]!.id], '2 hours');
    await t.db.execute(sql`UPDATE wa_sessions SET send_paused = true WHERE session_id = ${accountId}`);
    expect(await store.markUndelivered(3_600_000)).toBe(1);
    const [r] = await recipientsOf(t.db, jobId);
    expect(r?.undeliveredReason).toBe(UNDELIVERED_REASONS.restricted);
  });

  it('a reply marks the latest send of that account to that number within 7 days, once', async () => {
    const first = await sentJob(['917300000001']);
    const second = await sentJob(['917300000001'], first);
    // The first job's send was a day earlier.
    await t.db.execute(
      sql`UPDATE message_job_recipients SET sent_at = now() - interval '1 day' WHERE job_id = ${first.jobId}`,
    );
    const from = '917300000001@s.whatsapp.net';
    expect(await reply(t.db, first.sessionId, from, 'Yes please')).toBe(second.sent[0]!.id);
    expect(await reply(t.db, first.sessionId, from, 'Hello?')).toBeNull();
    expect((await jobRow(t.db, second.jobId))?.repliedCount).toBe(1);
    expect((await jobRow(t.db, first.jobId))?.repliedCount).toBe(0);
    const [r] = await recipientsOf(t.db, second.jobId);
    expect(r?.replyText).toBe('Yes please');
    // Another account's send, or one older than 7 days, is not a reply's.
    const other = await buildAccount(t, first.user.id);
    expect(await reply(t.db, other, from, 'Wrong account')).toBeNull();
    await t.db.execute(
      sql`UPDATE message_job_recipients SET sent_at = now() - interval '8 days' WHERE job_id = ${first.jobId}`,
    );
    await t.db.execute(
      sql`UPDATE message_job_recipients SET sent_at = now() - interval '9 days' WHERE job_id = ${second.jobId}`,
    );
    await t.db.execute(
      sql`UPDATE message_job_recipients SET replied_at = NULL WHERE job_id = ${second.jobId}`,
    );
    expect(await reply(t.db, first.sessionId, from, 'Too late')).toBeNull();
  });

  it('a receipt for a send that timed out (its copy kept before the relay) makes it sent, the refund reversed once', async () => {
    const { user, sessionId: accountId, jobId, store } = await acceptedJob(['917400000001'], 3);
    const messageId = '3EB0AAAABBBBCCCCDDDD';
    // The transport keeps its copy before relaying; the engine gives up on the send.
    const c = await timedOutWithCopy(store, accountId, '917400000001', messageId, 5_000);
    expect(await balanceOf(t.db, user.id)).toBe(3);
    expect((await jobRow(t.db, jobId))?.status).toBe('failed');

    const receipt = { accountId, messageId, status: 'delivered' as const, at: new Date() };
    expect(await applyReceipts(t.db, [receipt])).toEqual([receipt]);
    expect(await sentAfterAllByCopies(t.db, [{ accountId, messageId }])).toEqual([messageId]);
    expect(await sentAfterAllByCopies(t.db, [{ accountId, messageId }])).toEqual([]);
    expect(await applyReceipts(t.db, [receipt])).toEqual([]);

    const [r] = await recipientsOf(t.db, jobId);
    expect([r?.status, r?.messageId, r?.error]).toEqual(['sent', messageId, null]);
    expect(r?.deliveredAt).not.toBeNull();
    await expectSentAfterAll(t.db, jobId, user.id, 3);
    // Recorded again (the transport's late answer too): nothing changes.
    expect(await store.recordSentAfterAll([{ id: c!.id, messageId }])).toBe(0);
    expect(await balanceOf(t.db, user.id)).toBe(2);
  });

  it('a late answer with the balance spent meanwhile: shown sent, not debited below zero', async () => {
    const user = await buildUser(t, { credits: 1 });
    const row = (await findUserById(t.db, user.id))!;
    const accountId = await buildAccount(t, user.id);
    await acceptSend(t.ctx, row, accountId, { chatIds: ['917500000001'], content: 'Hi' }, 'individuals');
    const store = createDispatchStore(t.db, t.ctx.nodeId, 60_000);
    const [c] = await store.claim(accountId, 1);
    await store.fail(c!.id, DISPATCH_MESSAGES.sendTimedOut);
    // The refunded credit is spent on another send.
    await acceptSend(t.ctx, row, accountId, { chatIds: ['917500000002'], content: 'Hi' }, 'individuals');
    expect(await balanceOf(t.db, user.id)).toBe(0);
    expect(await store.recordSentAfterAll([{ id: c!.id, messageId: '3EB0LATE' }])).toBe(1);
    const [r] = await t.db.select().from(messageJobRecipients).where(eq(messageJobRecipients.id, c!.id));
    expect(r?.status).toBe('sent');
    expect(await balanceOf(t.db, user.id)).toBe(0);
    await expectLedgerChain(t.db, user.id);
  });
});

/**
 * A one-recipient job whose send timed out, was refunded, and was then answered after all: the job
 * completed with one sent and delivered, and the user's `granted` credits less the one charged
 * again. Returns the ledger, in order.
 */
async function expectSentAfterAll(db: Db, jobId: string, userId: string, granted: number) {
  const job = await jobRow(db, jobId);
  expect([job?.status, job?.sentCount, job?.failedCount, job?.deliveredCount]).toEqual([
    'completed',
    1,
    0,
    1,
  ]);
  expect(await balanceOf(db, userId)).toBe(granted - 1);
  const ledger = await expectLedgerChain(db, userId);
  expect(ledger.map((l) => [l.reason, l.delta])).toEqual([
    ['grant', granted],
    ['send', -1],
    ['refund', 1],
    ['send', -1],
  ]);
  return ledger;
}
