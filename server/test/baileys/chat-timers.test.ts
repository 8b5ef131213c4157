import { Readable } from 'node:stream';
import { deflateSync, inflateSync } from 'node:zlib';
import { proto, type WAMessage } from 'baileys';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { accounts } from '../../src/db/schema.ts';
import { createDbAuthStore } from '../../src/transport/auth-store.ts';
import { ChatTimers, timerOf } from '../../src/transport/baileys/chat-timers.ts';
import { type ChatTimer, readBootstrap } from '../../src/transport/baileys/history.ts';
import { buildUser, DB_KINDS, testAppFor } from '../helpers.ts';
import { waitFor } from '../wait.ts';

const PN = '919811600001@s.whatsapp.net';
const LID = '123456789012345@lid';
const from = (remoteJid: string, message: proto.IMessage, more: Record<string, unknown> = {}): WAMessage =>
  ({ key: { remoteJid, fromMe: false, id: 'ABC', ...more }, message }) as WAMessage;
const text = (expiration?: number): proto.IMessage => ({
  extendedTextMessage: proto.Message.ExtendedTextMessage.decode(
    proto.Message.ExtendedTextMessage.encode({
      text: 'Hi',
      ...(expiration ? { contextInfo: { expiration } } : {}),
    }).finish(),
  ),
});
const setting = (ephemeralExpiration: number): proto.IMessage => ({
  protocolMessage: { type: proto.Message.ProtocolMessage.Type.EPHEMERAL_SETTING, ephemeralExpiration },
});

describe('the timer a one-to-one message shows for its chat', () => {
  it('reads the chat setting, a contextInfo expiration, a plain text as none, and nothing from a reaction', () => {
    expect(timerOf(setting(86_400))).toBe(86_400);
    expect(timerOf(setting(0))).toBe(0);
    expect(timerOf(text(604_800))).toBe(604_800);
    expect(timerOf({ ephemeralMessage: { message: text(7_776_000) } })).toBe(7_776_000);
    expect(timerOf(text())).toBe(0);
    expect(timerOf({ conversation: 'Hi' })).toBe(0);
    expect(
      timerOf({
        reactionMessage: proto.Message.ReactionMessage.decode(
          proto.Message.ReactionMessage.encode({ text: '👍' }).finish(),
        ),
      }),
    ).toBeNull();
    expect(timerOf({ protocolMessage: { type: proto.Message.ProtocolMessage.Type.REVOKE } })).toBeNull();
  });

  it('gives the timers of the history bootstrap’s one-to-one chats, as rc14 reads them', async () => {
    const sync = proto.HistorySync.encode({
      syncType: proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP,
      conversations: [
        { id: LID, pnJid: PN, ephemeralExpiration: 86_400 },
        { id: '919811600002@s.whatsapp.net' },
        { id: '919811600003@s.whatsapp.net', lidJid: '223456789012345@lid', ephemeralExpiration: 604_800 },
      ],
    }).finish();
    const timers: ChatTimer[] = [];
    await readBootstrap(
      Readable.from([inflateSync(deflateSync(sync))]),
      async () => {},
      (c) => timers.push(...c),
    );
    expect(timers).toEqual([
      { jids: [LID, PN], seconds: 86_400 },
      { jids: ['919811600003@s.whatsapp.net', '223456789012345@lid'], seconds: 604_800 },
    ]);
  });
});

describe.each(DB_KINDS)('one-to-one chat timers kept with the account’s keys on %s', (kind) => {
  const t = testAppFor(kind, { WA_PROVIDER: 'baileys' });
  const log = pino({ level: 'silent' });

  it('keeps the latest timer of a chat under its number and its LID, across a restart; our own sends change nothing', async () => {
    const user = await buildUser(t);
    const accountId = '919811600000_timers';
    await t.db.insert(accounts).values({
      id: accountId,
      accountId,
      userId: user.id,
      phoneNumber: '919811600000',
      name: 'T',
    });
    const store = createDbAuthStore(t.db, accountId);
    // rc14's LID mappings know this one chat.
    const timersOn = () =>
      new ChatTimers({
        auth: store,
        pnOf: async (lid) => (lid === LID ? PN : null),
        lidOf: async (pn) => (pn === PN ? LID : null),
        log,
      });
    /** Waits until what `jids` read from the keys (a fresh instance: what a restart reads) is `seconds`. */
    const kept = (jids: string[], seconds: number) =>
      waitFor(
        `${jids.join(', ')} kept as ${seconds}`,
        async () => (await timersOn().of(jids)) === seconds,
        5000,
      );
    const timers = timersOn();
    // The contact writes from its LID, its number not in the stanza: kept under both.
    timers.fromMessage(from(LID, text(604_800)));
    await kept([PN], 604_800);
    expect(await timers.of([PN])).toBe(604_800);
    // Our own message without a timer (rc14 emits our sends back) leaves it. Shown by a later
    // message: a chat rc14 has no mapping for, kept under the JID it came by. Writes are kept one
    // after the other, so a write for our own message would have come first.
    timers.fromMessage(from(PN, text(), { fromMe: true }));
    timers.fromMessage(from('323456789012345@lid', text(86_400)));
    await kept(['919811600009@s.whatsapp.net', '323456789012345@lid'], 86_400);
    expect(await timers.of([PN])).toBe(604_800);
    // A restart: another instance reads what was kept.
    expect(await timersOn().of([LID])).toBe(604_800);
    expect(await timersOn().of([PN])).toBe(604_800);
    // The account's phone turns it off in the chat by number: under the LID too.
    timers.fromMessage(from(PN, setting(0), { fromMe: true }));
    await kept([PN, LID], 0);
    expect(await timers.of([PN, LID])).toBe(0);
  });
});
