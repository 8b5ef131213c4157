import { type BinaryNode, generateMessageIDV2, type WAMessageUpdate } from 'baileys';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WaEmulator } from '../src/index.ts';
import { linkedSocket, trustEmulator, waitFor } from './baileys-client.ts';

const OWN = '919800000002';

/**
 * The error codes rc14 reported for refused messages (Socket/messages-recv.js handleBadAck:
 * status ERROR with [code]), as an update or merged into the buffered upsert of the message
 * (Utils/event-buffer.js).
 */
function refusals(sock: Awaited<ReturnType<typeof linkedSocket>>['sock']): Map<string, string> {
  const refused = new Map<string, string>();
  const note = (id: string | null | undefined, status: unknown, params: unknown[] | null | undefined) => {
    if (id && status === 0) refused.set(id, String(params?.[0]));
  };
  sock.ev.on('messages.update', (updates: WAMessageUpdate[]) => {
    for (const u of updates) note(u.key.id, u.update.status, u.update.messageStubParameters);
  });
  sock.ev.on('messages.upsert', ({ messages }) => {
    for (const m of messages) if (m.key.fromMe) note(m.key.id, m.status, m.messageStubParameters);
  });
  return refused;
}

describe('what the emulated server takes, refuses and answers, to the real rc14 socket', () => {
  let emulator: WaEmulator;
  const lines: string[] = [];
  beforeEach(async () => {
    lines.length = 0;
    emulator = await WaEmulator.start({ log: (l) => lines.push(l) });
    trustEmulator(emulator);
  });
  afterEach(async () => {
    await emulator.stop();
  });

  it('a device query by LID is answered without a <lid> echo: rc14 stores no invalid LID-PN mapping', async () => {
    const alice = emulator.world.account('919811111121', 'Alice');
    const warnings: string[] = [];
    const { sock } = await linkedSocket(emulator, OWN, warnings);
    // The first send asks Alice's devices by number (mapping her LID), the second by her LID.
    await sock.sendMessage('919811111121@s.whatsapp.net', { text: 'By number' });
    await sock.sendMessage(`${alice.lid}@lid`, { text: 'By LID' });
    await waitFor('both texts', () => alice.inbox.filter((m) => m.kind === 'chat').length === 2);
    expect(await sock.signalRepository.lidMapping.getPNForLID(`${alice.lid}@lid`)).toBe(
      '919811111121:0@s.whatsapp.net',
    );
    expect(warnings.filter((w) => w.includes('Invalid LID-PN mapping'))).toEqual([]);
    sock.end(undefined);
  });

  it('a one-to-one stanza that mixes phone-number and LID addresses is refused 479 and goes nowhere', async () => {
    const alice = emulator.world.account('919811111122', 'Alice');
    const { sock } = await linkedSocket(emulator, OWN);
    const refused = refusals(sock);
    const id = generateMessageIDV2(sock.user?.id);
    // To Alice's number, her phone's copy addressed by her LID (rc14 relayMessage never mixes them).
    await sock.sendNode({
      tag: 'message',
      attrs: { to: '919811111122@s.whatsapp.net', id, type: 'text' },
      content: [
        {
          tag: 'participants',
          attrs: {},
          content: [
            {
              tag: 'to',
              attrs: { jid: `${alice.lid}@lid` },
              content: [{ tag: 'enc', attrs: { v: '2', type: 'pkmsg' }, content: Buffer.alloc(8) }],
            },
          ],
        },
      ],
    });
    await waitFor('the refusal', () => refused.get(id));
    expect(refused.get(id)).toBe('479');
    expect(lines.some((l) => l.startsWith(`REFUSED ${id}`))).toBe(true);
    expect(alice.inbox).toEqual([]);
    sock.end(undefined);
  });

  it('an account restricted from new chats: a new chat is refused 463, a chat whose contact gave a privacy token goes on', async () => {
    const alice = emulator.world.account('919811111123', 'Alice');
    const bob = emulator.world.account('919811111124', 'Bob');
    const { sock } = await linkedSocket(emulator, OWN);
    const refused = refusals(sock);
    // Alice writes first: her client gives the account her privacy token (privacy_token notification).
    await emulator.phone(alice.phone).say(OWN, 'Hi, send me the price list');
    emulator.restrictNewChats(OWN, new Date(Date.now() + 3_600_000));
    const toBob = await sock.sendMessage(`${bob.phone}@s.whatsapp.net`, { text: 'New chat' });
    await waitFor('the 463', () => refused.get(toBob!.key.id!));
    expect(refused.get(toBob!.key.id!)).toBe('463');
    // rc14 carries Alice's token (Socket/messages-send.js relayMessage `<tctoken>`): taken.
    const toAlice = await sock.sendMessage(`${alice.phone}@s.whatsapp.net`, { text: 'Here it is' });
    await waitFor('Alice gets it', () => alice.inbox.find((m) => m.id === toAlice!.key.id));
    expect(refused.has(toAlice!.key.id!)).toBe(false);
    expect(bob.inbox).toEqual([]);
    sock.end(undefined);
  });

  it('a lost frame gets no ack and goes nowhere; the same id sent again reaches the phone once', async () => {
    const alice = emulator.world.account('919811111125', 'Alice');
    const { sock } = await linkedSocket(emulator, OWN);
    const acked: string[] = [];
    sock.ws.on('CB:ack,class:message', (node: BinaryNode) => acked.push(node.attrs.id ?? ''));
    const lost = emulator.loseNext(OWN, (n) => n.tag === 'message');
    const id = generateMessageIDV2(sock.user?.id);
    await sock.sendMessage(`${alice.phone}@s.whatsapp.net`, { text: 'Lost on the way' }, { messageId: id });
    await lost;
    await new Promise((r) => setTimeout(r, 500));
    expect(acked).toEqual([]);
    expect(alice.inbox).toEqual([]);
    // Sent again under its id (after a cut the sender cannot know which): one copy, twice acked.
    await sock.sendMessage(`${alice.phone}@s.whatsapp.net`, { text: 'Lost on the way' }, { messageId: id });
    await sock.sendMessage(`${alice.phone}@s.whatsapp.net`, { text: 'Lost on the way' }, { messageId: id });
    await waitFor('two acks', () => acked.length === 2);
    expect(alice.inbox.filter((m) => m.kind === 'chat').map((m) => m.id)).toEqual([id]);
    sock.end(undefined);
  });
});
