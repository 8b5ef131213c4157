import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { waGroups } from '../../src/db/schema.ts';
import { baileysRigFor } from '../fakes/baileys-rig.ts';
import type { FakeSocket } from '../fakes/baileys-socket.ts';
import { balanceOf, jobDetails, recipientsOf, waitForJobEnd } from '../fakes/messaging.ts';
import { bearer, DB_KINDS } from '../helpers.ts';
import { waitFor } from '../wait.ts';

/**
 * The engine (API → dispatcher → account runner → BaileysTransport) over fake sockets that
 * behave as rc14 does (test/fakes/baileys-socket.ts names the rc14 file of each behaviour).
 */
describe.each(DB_KINDS)('the engine sending through Baileys on %s', (kind) => {
  const rig = baileysRigFor(kind, { dispatch: true, env: { SEND_TIMEOUT_MS: '20000' } });
  const { connected } = rig;

  async function send(
    s: { token: string; accountId: string },
    route: 'sendIndividualMessage' | 'sendBulkMessage',
    chatIds: string[],
    extra: object = {},
  ): Promise<string> {
    const res = await rig.t.app.inject({
      method: 'POST',
      url: `/api/session/${s.accountId}/${route}`,
      headers: bearer(s.token),
      payload: {
        chatIds,
        content: 'Hello',
        ...(route === 'sendBulkMessage' ? { type: 'string' } : {}),
        ...extra,
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().jobId as string;
  }

  const sentTo = (sock: FakeSocket, jid: string) => sock.sent.filter((m) => m.jid === jid).length;

  it('records the canonical JID, keeps a receipt that came before the send was recorded, and fails + refunds a message the server acks with an error', async () => {
    const s = await connected('Receipts', 10);
    // Brazil's 9th digit: WhatsApp answers the number without it.
    s.sock.canonical['5511987654321'] = '551187654321@s.whatsapp.net';
    // Delivered 600 ms before sendMessage resolves: the receipt flush (every 250 ms) sees it
    // before the message id is recorded.
    s.sock.receiptBeforeResolveMs = 600;
    const jobId = await send(s, 'sendIndividualMessage', ['5511987654321', '919822222222']);
    const job = await waitForJobEnd(rig.t.app, s.token, jobId);
    expect(job).toMatchObject({ status: 'completed', results: { success: 2, failed: 0 } });
    expect(s.sock.sent.map((m) => m.jid)).toEqual([
      '551187654321@s.whatsapp.net',
      '919822222222@s.whatsapp.net',
    ]);
    const [brazil, india] = await waitFor('the early receipt', async () => {
      const rs = await recipientsOf(rig.t.db, jobId);
      return rs[0]?.deliveredAt ? rs : null;
    });
    expect(brazil).toMatchObject({
      chatId: '5511987654321@s.whatsapp.net',
      sentTo: '551187654321@s.whatsapp.net',
      status: 'sent',
    });
    expect(india!.sentTo).toBeNull();
    const details = await jobDetails(rig.t.app, s.token, jobId);
    expect(details.results.delivered).toBe(1);
    expect(
      details.details.map((d: { chatId: string; sentTo: string | null }) => [d.chatId, d.sentTo]),
    ).toEqual([
      ['5511987654321@s.whatsapp.net', '551187654321@s.whatsapp.net'],
      ['919822222222@s.whatsapp.net', null],
    ]);

    // WhatsApp's server acks the next message with error 479 (Socket/messages-recv.js
    // handleBadAck): never sent, failed with the code and its cause, refunded.
    expect(await balanceOf(rig.t.db, s.user.id)).toBe(8);
    s.sock.nextAckError = '479';
    const refusedJob = await send(s, 'sendIndividualMessage', ['919822222223']);
    expect(await waitForJobEnd(rig.t.app, s.token, refusedJob)).toMatchObject({
      status: 'failed',
      results: { success: 0, failed: 1 },
    });
    expect((await recipientsOf(rig.t.db, refusedJob))[0]).toMatchObject({
      status: 'failed',
      error: 'WhatsApp refused the message (error 479: stale devices or mixed addressing)',
    });
    expect(await balanceOf(rig.t.db, s.user.id)).toBe(8);
  });

  it('no server ack before the socket closes: not sent, back in the queue, charged once, and sent again under the same message id after the reconnect', async () => {
    const s = await connected('Unacked', 10);
    const jid = '919844444401@s.whatsapp.net';
    s.sock.holdAcks = true;
    const jobId = await send(s, 'sendIndividualMessage', ['919844444401']);
    await waitFor('the frame written', async () => (sentTo(s.sock, jid) === 1 ? true : null));
    const firstId = s.sock.sentIds.at(-1)!;
    // Written but not acked: not sent (and, below, recorded sent only after the socket closed).
    expect((await recipientsOf(rig.t.db, jobId))[0]).toMatchObject({ status: 'sending', messageId: null });
    const before = rig.socketsOf(s.accountId).length;
    const closedAt = Date.now();
    s.sock.close(428, 'Connection Closed');
    const next = await waitFor('the reconnect', async () => rig.socketsOf(s.accountId)[before]);
    next.user = s.sock.user;
    next.open();
    next.flushLogin();
    const job = await waitForJobEnd(rig.t.app, s.token, jobId);
    expect(job).toMatchObject({ status: 'completed', results: { success: 1, failed: 0 } });
    expect(sentTo(next, jid)).toBe(1);
    expect(next.sentIds.at(-1)).toBe(firstId);
    const [sent] = await recipientsOf(rig.t.db, jobId);
    expect(sent).toMatchObject({ status: 'sent', messageId: firstId });
    expect(sent!.sentAt!.getTime()).toBeGreaterThanOrEqual(closedAt);
    expect(await balanceOf(rig.t.db, s.user.id)).toBe(9);
  });

  it('463 fails and refunds that message, pauses one-to-one sends until the time WhatsApp gives, group sends go on, and resumes by itself', async () => {
    const s = await connected('Restricted', 10);
    await waitFor('groups cached', async () =>
      (await rig.t.db.select().from(waGroups).where(eq(waGroups.accountId, s.accountId))).length === 3
        ? true
        : null,
    );
    // Far enough ahead that the timelock is still live when its answer is taken on a loaded machine
    // (an end already past is no restriction, and the account would not show it).
    const ends = Math.floor(Date.now() / 1000) + 12;
    s.sock.reachout = { is_active: true, time_enforcement_ends: String(ends) };
    s.sock.nextAckError = '463';
    const first = await send(s, 'sendIndividualMessage', ['919833333301']);
    await waitFor('the 463 outcome', async () =>
      (await recipientsOf(rig.t.db, first))[0]?.status === 'failed' ? true : null,
    );
    expect((await recipientsOf(rig.t.db, first))[0]!.error).toBe(
      'Paused: WhatsApp restricted this account from starting new chats (error 463)',
    );
    expect(await balanceOf(rig.t.db, s.user.id)).toBe(10);
    await waitFor('the end time', async () =>
      (await rig.row(s.accountId)).sendPausedUntil?.getTime() === ends * 1000 ? true : null,
    );
    const listed = (
      await rig.t.app.inject({ method: 'GET', url: '/api/sessions', headers: bearer(s.token) })
    ).json().sessions[0];
    expect(listed).toMatchObject({ sendPaused: true, sendPausedUntil: new Date(ends * 1000).toISOString() });

    const held = await send(s, 'sendIndividualMessage', ['919833333302']);
    const group = await send(s, 'sendBulkMessage', ['120363000000000001@g.us']);
    expect((await waitForJobEnd(rig.t.app, s.token, group)).status).toBe('completed');
    expect(sentTo(s.sock, '120363000000000001@g.us')).toBe(1);
    expect((await recipientsOf(rig.t.db, held))[0]).toMatchObject({ status: 'queued', attempts: 0 });
    expect(sentTo(s.sock, '919833333302@s.whatsapp.net')).toBe(0);
    expect(Date.now()).toBeLessThan(ends * 1000);

    // At the time WhatsApp gave, the held message goes, once.
    expect((await waitForJobEnd(rig.t.app, s.token, held, 30_000)).status).toBe('completed');
    expect(Date.now()).toBeGreaterThanOrEqual(ends * 1000);
    expect(sentTo(s.sock, '919833333302@s.whatsapp.net')).toBe(1);
    await waitFor('the pause cleared', async () => (!(await rig.row(s.accountId)).sendPaused ? true : null));
    expect(await balanceOf(rig.t.db, s.user.id)).toBe(8);
  });

  it('a 463 WhatsApp reports no timelock for pauses new chats for a growing while (this rig: 1.5 s, then 3 s), shown on the account and the job; a notified timelock holds until WhatsApp lifts it', async () => {
    const s = await connected('Timelock', 10);
    // WhatsApp answers that no timelock is active (a 463 for a missing tctoken): new chats are tried
    // again after a pause, not held until someone presses Resume.
    s.sock.reachout = { is_active: false };
    s.sock.nextAckError = '463';
    const before = Date.now();
    await send(s, 'sendIndividualMessage', ['919833333401']);
    await waitFor('paused', async () => ((await rig.row(s.accountId)).sendPausedUntil ? true : null));
    const firstPause = (await rig.row(s.accountId)).sendPausedUntil!.getTime();
    expect(firstPause - before).toBeGreaterThanOrEqual(1500);
    expect(firstPause - before).toBeLessThan(1500 + 2000);
    // The next new chat waits for the pause's end, and the job says why and until when.
    s.sock.nextAckError = '463';
    const held = await send(s, 'sendIndividualMessage', ['919833333402']);
    const waiting = (
      await rig.t.app.inject({
        method: 'GET',
        url: `/api/message-jobs-details/${held}?media=0`,
        headers: bearer(s.token),
      })
    ).json().job;
    expect(waiting.statusReason).toMatch(
      /^Paused: WhatsApp restricted this account from starting new chats \(error 463\): new chats are tried again at /,
    );
    expect((await recipientsOf(rig.t.db, held))[0]!.status).toBe('queued');
    // It goes at the end of the pause, is refused 463 again: the next pause is twice as long.
    await waitFor(
      'the retried new chat',
      async () => ((await recipientsOf(rig.t.db, held))[0]?.status === 'failed' ? true : null),
      10_000,
    );
    expect(sentTo(s.sock, '919833333402@s.whatsapp.net')).toBe(1);
    expect(s.sock.sentAt.at(-1)!).toBeGreaterThanOrEqual(firstPause);
    const secondAt = s.sock.sentAt.at(-1)!;
    await waitFor('the second pause', async () =>
      ((await rig.row(s.accountId)).sendPausedUntil?.getTime() ?? 0) > firstPause ? true : null,
    );
    const secondPause = (await rig.row(s.accountId)).sendPausedUntil!.getTime();
    expect(secondPause - secondAt).toBeGreaterThanOrEqual(3000 - 100);
    expect(secondPause - secondAt).toBeLessThan(3000 + 2000);
    // Then WhatsApp notifies a timelock of an hour: it holds past our own pause, until WhatsApp lifts it.
    const third = await send(s, 'sendIndividualMessage', ['919833333403']);
    s.sock.notifyTimelock({
      is_active: true,
      time_enforcement_ends: String(Math.floor(Date.now() / 1000) + 3600),
    });
    await waitFor('the timelock', async () =>
      ((await rig.row(s.accountId)).sendPausedUntil?.getTime() ?? 0) > Date.now() + 600_000 ? true : null,
    );
    // Past the end of our own pause, a group message still goes (groups are not restricted) and
    // the new chat, due before it, stays held.
    await waitFor('our own pause over', async () => (Date.now() > secondPause ? true : null));
    await waitFor('groups cached', async () =>
      (await rig.t.db.select().from(waGroups).where(eq(waGroups.accountId, s.accountId))).length === 3
        ? true
        : null,
    );
    const group = await send(s, 'sendBulkMessage', ['120363000000000001@g.us']);
    expect((await waitForJobEnd(rig.t.app, s.token, group)).status).toBe('completed');
    expect((await recipientsOf(rig.t.db, third))[0]!.status).toBe('queued');
    s.sock.notifyTimelock({ is_active: false });
    expect((await waitForJobEnd(rig.t.app, s.token, third)).status).toBe('completed');
    expect(sentTo(s.sock, '919833333403@s.whatsapp.net')).toBe(1);
  });

  it('429 rate-overlimit puts the recipient back, pauses the account, and sends it once later', async () => {
    const s = await connected('Rate limited', 10);
    s.sock.nextSendError = { code: 429, text: 'rate-overlimit' };
    const jobId = await send(s, 'sendIndividualMessage', ['919844444401']);
    const job = await waitForJobEnd(rig.t.app, s.token, jobId);
    expect(job).toMatchObject({ status: 'completed', results: { success: 1, failed: 0 } });
    expect(s.sock.refusedAt).toHaveLength(1);
    // The account waited its pause (500 ms in this rig) before it sent again.
    expect(s.sock.sentAt.at(-1)! - s.sock.refusedAt[0]!).toBeGreaterThanOrEqual(500);
    expect(sentTo(s.sock, '919844444401@s.whatsapp.net')).toBe(1);
    expect((await recipientsOf(rig.t.db, jobId))[0]).toMatchObject({ status: 'sent', error: null });
    expect((await rig.row(s.accountId)).sendPaused).toBe(false);
    expect(await balanceOf(rig.t.db, s.user.id)).toBe(9);
  });

  it('media is encrypted and uploaded once per job and account, with the upload timeout, and relayed to every recipient', async () => {
    const s = await connected('Media', 10);
    await waitFor('groups cached', async () =>
      (await rig.t.db.select().from(waGroups).where(eq(waGroups.accountId, s.accountId))).length === 3
        ? true
        : null,
    );
    const groups = ['120363000000000001@g.us', '120363000000000002@g.us', '120363000000000003@g.us'];
    const jobId = await send(s, 'sendBulkMessage', groups, {
      type: 'media',
      mime: 'application/pdf',
      data: Buffer.from('%PDF-1.4 price list').toString('base64'),
      fileName: 'prices.pdf',
      content: 'Prices',
    });
    expect(await waitForJobEnd(rig.t.app, s.token, jobId)).toMatchObject({
      status: 'completed',
      results: { success: 3 },
    });
    // One upload (rc14 re-encrypted and re-uploaded a Buffer for every recipient), SEND_TIMEOUT_MS as its limit.
    expect(s.sock.uploads).toEqual([{ mediaType: 'document', timeoutMs: 20_000 }]);
    expect(s.sock.sent.map((m) => m.jid)).toEqual(groups);
    const docs = s.sock.sent.map(
      (m) =>
        (
          m.content as {
            documentMessage: {
              url: string;
              mediaKey: Uint8Array;
              mimetype: string;
              fileName: string;
              caption: string;
            };
          }
        ).documentMessage,
    );
    for (const d of docs) {
      expect(d).toMatchObject({
        url: 'https://mmg.whatsapp.net/fake/1',
        mimetype: 'application/pdf',
        fileName: 'prices.pdf',
        caption: 'Prices',
      });
      expect(Buffer.from(d.mediaKey).equals(Buffer.from(docs[0]!.mediaKey))).toBe(true);
    }
    // Each recipient has its own message id.
    const ids = (await recipientsOf(rig.t.db, jobId)).map((r) => r.messageId);
    expect(new Set(ids).size).toBe(3);
  });
});
