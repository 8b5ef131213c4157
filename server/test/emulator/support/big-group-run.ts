import { type Connection as EmulatorConnection, iqKey, type WaEmulator } from '@wa/emulator';
import { type BinaryNode, getBinaryNodeChild, getBinaryNodeChildren } from 'baileys';
import type { BaileysTransport } from '../../../src/transport/baileys/transport.ts';
import { SendError } from '../../../src/transport/types.ts';
import { waitFor } from '../../wait.ts';
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
  /** When the emulator read the relay stanza (after the product's device lookups, key fetches and encryption). */
  onWireMs: number;
  /** The emulator's own time answering this account's queries before that (key bundles, devices). */
  emulatorAnswersMs: number;
  /** The emulator's own time taking the relay: its ack, then every member decrypting its copies. */
  emulatorDecryptMs: number;
  /** The product's part: until its relay was on the wire and the send returned, less the emulator's answers. */
  productMs: number;
  /** Why the connection closed during the send (then sent again under the same id), in order. */
  closes: string[];
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
  // The emulator runs in this process: the time of each of its nodes from this account (wall
  // time of its handler; the product waits meanwhile) is the emulator's part, the rest the product's.
  const startedAt = Date.now();
  let emulatorAnswersMs = 0;
  let emulatorDecryptMs = 0;
  let onWireMs = 0;
  const host = emulator as unknown as {
    onNode: (conn: EmulatorConnection, node: BinaryNode) => Promise<void>;
  };
  const onNode = host.onNode;
  host.onNode = async function (this: unknown, conn, node) {
    const at = performance.now();
    const relaying = node.tag === 'message' && node.attrs.to === `${group.id}@g.us`;
    if (relaying) onWireMs = Date.now() - startedAt;
    try {
      await onNode.call(this, conn, node);
    } finally {
      if (conn.account?.phone === own && node.tag === 'iq') emulatorAnswersMs += performance.now() - at;
      if (relaying) emulatorDecryptMs += performance.now() - at;
    }
  };
  // Why the connection closed while the send ran, if it did (rc14's keep-alive on a starved CPU,
  // or the emulator ending it): printed with the figures.
  const closes: string[] = [];
  transport.on('connection', (u) => {
    if (u.state === 'closed') closes.push(u.reason);
  });
  const to = `${group.id}@g.us`;
  const message = { kind: 'text', text: `To ${members}` } as const;
  const send = transport.send(to, message);
  const first = await Promise.race([send, new Promise((r) => setTimeout(() => r('timed out'), raceMs))]);
  // A send whose connection closed before WhatsApp's ack goes again under the same id once the
  // transport is open again, as the engine sends it (SendError.messageId); the phones keep one copy.
  const messageId = await send.then(
    (r) => r.messageId,
    async (err: unknown) => {
      const id = err instanceof SendError && err.retriesLater ? err.messageId : null;
      if (!id) throw err;
      await waitFor('the connection open again', async () => transport.state === 'open', 60_000, 200);
      return (await transport.send(to, message, { messageId: id })).messageId;
    },
  );
  const relayMs = Date.now() - startedAt;
  const others = group.members.filter((m) => m.phone !== own);
  await waitFor(
    'every member to decrypt it',
    async () => others.every((m) => emulator.world.account(m.phone).inbox.some((x) => x.id === messageId)),
    540_000,
    500,
  );
  const deliveredMs = Date.now() - startedAt;
  stop();
  host.onNode = onNode;
  return {
    transport,
    outlasted: first === 'timed out',
    relayMs,
    deliveredMs,
    keyFetches,
    keysAsked,
    onWireMs,
    emulatorAnswersMs: Math.round(emulatorAnswersMs),
    emulatorDecryptMs: Math.round(emulatorDecryptMs),
    productMs: Math.round(Math.max(relayMs, onWireMs) - emulatorAnswersMs),
    closes,
  };
}
