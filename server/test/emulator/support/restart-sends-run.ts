import { iqKey, type WaEmulator } from '@wa/emulator';
import { type BinaryNode, getBinaryNodeChild, getBinaryNodeChildren } from 'baileys';
import type { BaileysTransport } from '../../../src/transport/baileys/transport.ts';
import { waitFor } from '../../wait.ts';
import { linkedTransport, memoryNumberStore } from './transport-rig.ts';

/** What the account asked the server for while it sent to its contacts once. */
export type KeyTraffic = {
  /** usync queries with a `<devices>` query (rc14 Socket/messages-send.js getUSyncDevices), and the users they named. */
  deviceQueries: number;
  usersAsked: number;
  /** `encrypt get key` iqs (rc14 assertSessions: prekey bundles), and the users they named. */
  keyFetches: number;
  keysAsked: number;
  /** From the first send to every contact holding its copy. */
  ms: number;
};

/**
 * A linked account sends one message to each of `contacts` (one at a time, as the engine's lane
 * does), the product restarts (a new transport over the stored keys, transport-rig.ts restart),
 * and it sends to the same contacts again: the device queries and key fetches of each round, as
 * the emulator saw them. Used by rc14-faults.test.ts and by the bench (restart-keys-probe.ts).
 */
export async function sendsBeforeAndAfterRestart(
  emulator: WaEmulator,
  options: { own: string; contacts: string[] },
): Promise<{ transports: BaileysTransport[]; before: KeyTraffic; after: KeyTraffic }> {
  const { own, contacts } = options;
  for (const c of contacts) emulator.world.account(c);
  // The on-WhatsApp answers are kept as the database keeps them, and asked ahead of the sends
  // (the contacts are the account's queue).
  const { transport, restart } = await linkedTransport(emulator, own, {
    storage: { numbers: memoryNumberStore(() => contacts) },
  });
  const before = await sendToEach(emulator, transport, own, contacts, 'Before the restart');
  const again = await restart();
  const after = await sendToEach(emulator, again, own, contacts, 'After the restart');
  return { transports: [transport, again], before, after };
}

async function sendToEach(
  emulator: WaEmulator,
  transport: BaileysTransport,
  own: string,
  contacts: string[],
  text: string,
): Promise<KeyTraffic> {
  const t: KeyTraffic = { deviceQueries: 0, usersAsked: 0, keyFetches: 0, keysAsked: 0, ms: 0 };
  const users = (node: BinaryNode, list: string) =>
    getBinaryNodeChildren(getBinaryNodeChild(node, list), 'user').length;
  const stop = emulator.watch((conn, node) => {
    if (conn.account?.phone !== own || node.tag !== 'iq') return;
    const usync = getBinaryNodeChild(node, 'usync');
    if (usync && getBinaryNodeChild(getBinaryNodeChild(usync, 'query'), 'devices')) {
      t.deviceQueries++;
      t.usersAsked += users(usync, 'list');
    }
    if (iqKey(node) === 'encrypt get key') {
      t.keyFetches++;
      t.keysAsked += users(node, 'key');
    }
  });
  const started = Date.now();
  const sent = new Map<string, string>();
  for (const c of contacts)
    sent.set(c, (await transport.send(`${c}@s.whatsapp.net`, { kind: 'text', text })).messageId);
  await waitFor(
    `every contact to get "${text}"`,
    async () => contacts.every((c) => emulator.world.account(c).inbox.some((m) => m.id === sent.get(c))),
    300_000,
    50,
  );
  t.ms = Date.now() - started;
  stop();
  return t;
}
