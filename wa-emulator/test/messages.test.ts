import { proto, type WAMessageUpdate } from 'baileys';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WaEmulator } from '../src/index.ts';
import { linkedSocket, trustEmulator, waitFor } from './baileys-client.ts';

const OWN = '919800000001';

describe('messages from the real rc14 socket to the emulated phones', () => {
  let emulator: WaEmulator;
  const lines: string[] = [];
  beforeEach(async () => {
    emulator = await WaEmulator.start({ log: (l) => lines.push(l) });
    trustEmulator(emulator);
  });
  afterEach(async () => {
    await emulator.stop();
  });

  it('a text reaches the contact decrypted (pkmsg, then msg), with delivery and read receipts back', async () => {
    const alice = emulator.world.account('919811111111', 'Alice');
    const { sock } = await linkedSocket(emulator, OWN);
    const statuses = new Map<string, number[]>();
    sock.ev.on('messages.update', (updates: WAMessageUpdate[]) => {
      for (const u of updates)
        if (u.key.id && u.update.status)
          statuses.set(u.key.id, [...(statuses.get(u.key.id) ?? []), u.update.status]);
    });

    const found = await sock.onWhatsApp('919811111111', '919899999999');
    expect(found).toEqual([{ jid: '919811111111@s.whatsapp.net', exists: true }]);

    const first = await sock.sendMessage('919811111111@s.whatsapp.net', { text: 'Hello Alice 👋' });
    const second = await sock.sendMessage('919811111111@s.whatsapp.net', { text: 'Second one' });
    await waitFor('two messages in the inbox', () => alice.inbox.length === 2);
    expect(alice.inbox.map((m) => [m.id, m.text, m.kind, m.from])).toEqual([
      [first!.key.id, 'Hello Alice 👋', 'chat', OWN],
      [second!.key.id, 'Second one', 'chat', OWN],
    ]);
    // The phone of the sending account gets its device-sent copy.
    const own = emulator.world.account(OWN);
    await waitFor('the own copies', () => own.inbox.length === 2);
    expect(own.inbox.map((m) => [m.kind, m.text])).toEqual([
      ['sent', 'Hello Alice 👋'],
      ['sent', 'Second one'],
    ]);
    await waitFor('read receipts', () =>
      statuses.get(second!.key.id!)?.includes(proto.WebMessageInfo.Status.READ),
    );
    // rc14's event buffer may merge a delivery into the read that follows it (Utils/event-buffer.js).
    expect(statuses.get(first!.key.id!)?.at(-1)).toBe(proto.WebMessageInfo.Status.READ);
    sock.end(undefined);
    expect(lines.filter((l) => l.includes('FAILED'))).toEqual([]);
    expect(emulator.gaps).toEqual([]);
  });

  it('a contact writes to the account: the companion decrypts it (pkmsg, then msg) and sends a receipt', async () => {
    emulator.world.account('919811111111', 'Alice');
    const { sock } = await linkedSocket(emulator, OWN);
    const received: { from: string; text: string; fromMe: boolean }[] = [];
    sock.ev.on('messages.upsert', ({ messages }) => {
      for (const m of messages)
        if (m.message?.conversation)
          received.push({
            from: (m.key as { remoteJidAlt?: string }).remoteJidAlt ?? m.key.remoteJid ?? '',
            text: m.message.conversation,
            fromMe: !!m.key.fromMe,
          });
    });
    // rc14 answers a message with a receipt (type inactive: the companion is not marked online).
    const receipted = emulator.nextNode((_c, n) => n.tag === 'receipt');
    const alice = emulator.phone('919811111111');
    const id = await alice.say(OWN, 'STOP');
    expect((await receipted).attrs).toMatchObject({
      id,
      to: '919811111111@s.whatsapp.net',
      type: 'inactive',
    });
    await alice.say(OWN, 'second');
    await waitFor('both texts', () => received.length === 2);
    expect(received).toEqual([
      { from: '919811111111@s.whatsapp.net', text: 'STOP', fromMe: false },
      { from: '919811111111@s.whatsapp.net', text: 'second', fromMe: false },
    ]);
    sock.end(undefined);
    expect(emulator.gaps).toEqual([]);
  });
});
