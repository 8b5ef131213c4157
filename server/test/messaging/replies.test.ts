import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { simulatedGroups } from '../../src/transport/simulator/network.ts';
import { createAccount } from '../fakes/accounts.ts';
import { baileysRigFor } from '../fakes/baileys-rig.ts';
import { balanceOf, recipientsOf } from '../fakes/messaging.ts';
import {
  appWithEngine,
  bearer,
  DB_KINDS,
  linkedAccount,
  account as signedIn,
  type TestApp,
} from '../helpers.ts';
import { waitFor } from '../wait.ts';

type OptOutRow = { phoneNumber: string; source: string; createdAt: string };

async function optOutsOf(t: TestApp, token: string): Promise<OptOutRow[]> {
  const res = await t.app.inject({ method: 'GET', url: '/api/opt-outs', headers: bearer(token) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().optOuts as OptOutRow[];
}

/** A job of `numbers` that waits an hour: its recipients stay queued. */
async function scheduledJob(
  t: TestApp,
  token: string,
  accountId: string,
  numbers: string[],
): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/session/${accountId}/sendIndividualMessage`,
    headers: bearer(token),
    payload: {
      chatIds: numbers,
      content: 'Sale today',
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().jobId as string;
}

const statusOfRecipients = async (t: TestApp, jobId: string) =>
  (await recipientsOf(t.db, jobId)).map((r) => [r.chatId.split('@')[0], r.status, r.error]).sort();

/** Replies to a simulated account, through the simulator's inbound route and the engine. */
describe.each(DB_KINDS)('replies to a simulated account on %s', (kind) => {
  const users = new Set<string>();
  const phone = 919_600_000_001;
  const { t } = appWithEngine(kind, { SIMULATOR_GROUPS: '3', SESSION_LEASE_MS: '3000' }, users);

  const account = (credits: number) => linkedAccount(t, { credits, track: users });
  const inbound = (token: string, accountId: string, payload: object) =>
    t.app.inject({
      method: 'POST',
      url: `/api/simulator/sessions/${accountId}/inbound`,
      headers: bearer(token),
      payload,
    });

  it('a STOP reply puts the number on the opt-out list (source reply); its queued recipient fails Opted out, refunded', async () => {
    const { user, token, accountId } = await account(10);
    const jobId = await scheduledJob(t, token, accountId, ['919800020001', '919800020002']);
    expect(await balanceOf(t.db, user.id)).toBe(8);

    // Not a keyword: nothing happens.
    const chat = await inbound(token, accountId, {
      from: '919800020001',
      text: 'Stop sending me offers please',
    });
    expect(chat.statusCode, chat.body).toBe(200);
    expect(chat.json()).toEqual({ success: true, message: 'Message delivered' });

    const before = Date.now();
    const stop = await inbound(token, accountId, { from: '+91 98000 20001', text: '  stop ' });
    expect(stop.statusCode, stop.body).toBe(200);
    const list = await waitFor(
      'the opt-out',
      async () => {
        const rows = await optOutsOf(t, token);
        return rows.length > 0 ? rows : null;
      },
      10_000,
    );
    // The opt-out keeps the word, its language and the message as received.
    expect(list).toEqual([
      {
        phoneNumber: '919800020001',
        source: 'reply',
        keyword: 'STOP',
        language: 'en',
        message: '  stop ',
        createdAt: expect.any(String),
      },
    ]);
    expect(new Date(list[0]!.createdAt).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(await statusOfRecipients(t, jobId)).toEqual([
      ['919800020001', 'failed', 'Opted out'],
      ['919800020002', 'queued', null],
    ]);
    expect(await balanceOf(t.db, user.id)).toBe(9);
  });

  it('takes the sender as a JID or as a LID of a group member; other keywords and any case', async () => {
    const { token, accountId } = await account(0);
    expect(
      (await inbound(token, accountId, { from: '919800020003@s.whatsapp.net', text: 'UNSUBSCRIBE' }))
        .statusCode,
    ).toBe(200);
    // A member of the account's first simulated group, known by LID.
    const member = simulatedGroups(accountId, String(phone), 3)[0]!.participants[2]!;
    expect(member.id).toMatch(/@lid$/);
    expect((await inbound(token, accountId, { from: member.lid, text: 'Stop all' })).statusCode).toBe(200);
    // A LID nobody maps to a number is opted out as the LID: its digits are no number, so the
    // list shows a short form of it, never the raw id.
    expect((await inbound(token, accountId, { from: '123451234512345@lid', text: 'STOP' })).statusCode).toBe(
      200,
    );
    const numbers = await waitFor(
      'three opt-outs',
      async () => {
        const rows = (await optOutsOf(t, token)).map((r) => r.phoneNumber).sort();
        return rows.length >= 3 ? rows : null;
      },
      10_000,
    );
    expect(numbers).toEqual(['919800020003', member.phoneNumber!, 'LID 123451…2345'].sort());
    expect(numbers).not.toContain('123451234512345');
  });

  it('answers 404 for another user’s session, 409 when not connected, 400 for a sender that is not a number', async () => {
    const a = await account(0);
    const { token: otherToken } = await signedIn(t);
    const res = await inbound(otherToken, a.accountId, { from: '919800020009', text: 'STOP' });
    expect(res.statusCode).toBe(404);
    const pending = await createAccount(t, otherToken, {
      phoneNumber: '919600009999',
      sessionName: 'Waiting',
    });
    const notConnected = await inbound(otherToken, pending, { from: '919800020009', text: 'STOP' });
    expect(notConnected.statusCode).toBe(409);
    expect(notConnected.json().message).toBe('The session is not connected');
    expect((await inbound(a.token, a.accountId, { from: 'someone', text: 'STOP' })).statusCode).toBe(400);
    expect(await optOutsOf(t, a.token)).toEqual([]);
    expect(await optOutsOf(t, otherToken)).toEqual([]);
  });
});

/** Replies through BaileysTransport, over the fake rc14 socket. */
describe.each(DB_KINDS)('replies on the Baileys transport (fake rc14 socket) on %s', (kind) => {
  const rig = baileysRigFor(kind);

  it('one-to-one texts that are keywords opt their sender out, by PN, by LID with or without sender_pn; nothing else does', async () => {
    const { accountId, first, index, token, user } = await rig.start('Replies', { credits: 10 });
    const s = await rig.pairAndOpen(accountId, first, index);
    const t = rig.t;
    const jobId = await scheduledJob(t, token, accountId, ['919800030001', '919800030002', '919800030009']);
    s.lidToPn['300000000000077'] = '919800030003';

    // Not counted: our own message, a group message, a text that is not a keyword. A LID with no
    // number is opted out as the LID (and leaves 919800030009's recipient queued: nothing says it is theirs).
    s.receive({ from: '919800030009@s.whatsapp.net', fromMe: true, message: { conversation: 'STOP' } });
    s.receive({
      from: '120363000000000001@g.us',
      participant: '919800030009@s.whatsapp.net',
      message: { conversation: 'STOP' },
    });
    s.receive({ from: '919800030009@s.whatsapp.net', message: { conversation: 'please stop' } });
    s.receive({ from: '300000000000099@lid', message: { conversation: 'STOP' } });
    // Counted: a plain text from a PN chat, an extended text from a LID chat carrying sender_pn,
    // an ephemeral (disappearing) text from a LID only the mapping store knows, a text held offline.
    s.receive({ from: '919800030001@s.whatsapp.net', message: { conversation: 'Stop' } });
    s.receive({
      from: '300000000000055@lid',
      alt: '919800030002@s.whatsapp.net',
      message: { extendedTextMessage: { text: 'UNSUBSCRIBE ' } },
    });
    s.receive({
      from: '300000000000077:3@lid',
      message: { ephemeralMessage: { message: { extendedTextMessage: { text: 'stop all' } } } },
    });
    s.receive({ from: '919800030004@s.whatsapp.net', offline: true, message: { conversation: 'STOP' } });

    // Last, one more STOP: the list is read once all five counted ones are in it (the LID ones are
    // looked up, so they may come after it), and by then the messages before them were taken.
    s.receive({ from: '919800030005@s.whatsapp.net', message: { conversation: 'STOP' } });

    const numbers = await waitFor(
      'six opt-outs',
      async () => {
        const rows = (await optOutsOf(t, token)).map((r) => `${r.phoneNumber}:${r.source}`).sort();
        return rows.length >= 6 ? rows : null;
      },
      10_000,
    );
    expect(numbers).toEqual([
      '919800030001:reply',
      '919800030002:reply',
      '919800030003:reply',
      '919800030004:reply',
      '919800030005:reply',
      'LID 300000…0099:reply',
    ]);
    expect(await statusOfRecipients(t, jobId)).toEqual([
      ['919800030001', 'failed', 'Opted out'],
      ['919800030002', 'failed', 'Opted out'],
      ['919800030009', 'queued', null],
    ]);
    // The LIDs WhatsApp gave a number for (sender_pn, the mapping store) are one person with it;
    // the LID with none stays alone (a person of one address: the Inbox keeps its message).
    const joined = await queryRows<{ pair: string }>(
      t.db,
      sql`SELECT string_agg(kind || ':' || value, ' ' ORDER BY kind) AS pair FROM person_addresses
          WHERE user_id = ${user.id} GROUP BY person_id HAVING count(*) > 1 ORDER BY pair`,
    );
    expect(joined.map((j) => j.pair)).toEqual([
      'lid:300000000000055 phone:919800030002',
      'lid:300000000000077 phone:919800030003',
    ]);
    expect(await balanceOf(t.db, user.id)).toBe(9);
  });

  it('a reply that arrives during the login is taken when rc14 flushes its buffer', async () => {
    const { accountId, first, index, token } = await rig.start('Login replies');
    const s = await rig.pairAndOpen(accountId, first, index);
    // The next socket (after a drop) opens and buffers its events until the offline notifications.
    s.close(428, 'Connection Closed');
    const s2 = await waitFor('the socket after the drop', async () => rig.maker.sockets[index + 2], 10_000);
    s2.user = s.user;
    s2.open();
    s2.receive({ from: '919800030011@s.whatsapp.net', offline: true, message: { conversation: 'STOP' } });
    expect(await optOutsOf(rig.t, token)).toEqual([]);
    // Taken only after the flush: the opt-out is written after it (checked below).
    const flushedAt = Date.now();
    s2.flushLogin();
    const rows = await waitFor(
      'the opt-out after the flush',
      async () => {
        const list = await optOutsOf(rig.t, token);
        return list.length > 0 ? list : null;
      },
      10_000,
    );
    expect(rows.map((r) => r.phoneNumber)).toEqual(['919800030011']);
    expect(new Date(rows[0]!.createdAt).getTime()).toBeGreaterThanOrEqual(flushedAt);
  });
});
