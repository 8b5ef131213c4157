import { iqKey, type WaEmulator } from '@wa/emulator';
import { getBinaryNodeChild, getBinaryNodeChildren } from 'baileys';
import type { BaileysTransport } from '../../src/transport/baileys/transport.ts';
import { waitFor } from '../wait.ts';
import { linkedTransport } from './transport-rig.ts';

/**
 * The first send of a newly linked account to a LID group of `members` (rc14 Socket/messages-send.js
 * relayMessage: device lookups, key fetches and one sender-key copy per member device), through
 * the product's transport against the emulator, in this process. Used by big-group.test.ts and by
 * the bench (big-group-probe.ts).
 */
export async function firstSendToBigGroup(
  emulator: WaEmulator,
  members: number,
  options: { own: string; raceMs: number },
): Promise<{
  transport: BaileysTransport;
  /** Whether the relay was still running after `raceMs`. */
  outlasted: boolean;
  relayMs: number;
  deliveredMs: number;
  keyFetches: number;
  keysAsked: number;
}> {
  const { own, raceMs } = options;
  const group = emulator.world.addGroup({
    subject: `${members} members`,
    creator: own,
    addressingMode: 'lid',
    members: [
      { phone: own, admin: 'superadmin' },
      ...Array.from({ length: members - 1 }, (_, i) => ({
        phone: `91981500${String(i).padStart(4, '0')}`,
        admin: null,
      })),
    ],
  });
  const { transport } = await linkedTransport(emulator, own);
  let keyFetches = 0;
  let keysAsked = 0;
  const stop = emulator.watch((conn, node) => {
    if (conn.account?.phone !== own || node.tag !== 'iq' || iqKey(node) !== 'encrypt get key') return;
    keyFetches++;
    keysAsked += getBinaryNodeChildren(getBinaryNodeChild(node, 'key'), 'user').length;
  });
  const startedAt = Date.now();
  const send = transport.send(`${group.id}@g.us`, { kind: 'text', text: `To ${members}` });
  const first = await Promise.race([send, new Promise((r) => setTimeout(() => r('timed out'), raceMs))]);
  const { messageId } = await send;
  const relayMs = Date.now() - startedAt;
  const others = group.members.filter((m) => m.phone !== own);
  await waitFor(
    'every member to decrypt it',
    async () => others.every((m) => emulator.world.account(m.phone).inbox.some((x) => x.id === messageId)),
    240_000,
    500,
  );
  const deliveredMs = Date.now() - startedAt;
  stop();
  return { transport, outlasted: first === 'timed out', relayMs, deliveredMs, keyFetches, keysAsked };
}
