import { type BinaryNode, jidDecode } from 'baileys';
import type { WaEmulator } from './emulator.ts';
import type { PreKeyBundle } from './signal-peer.ts';

/** A device's prekey bundle: the phone's own (device 0) or what a companion uploaded. */
export async function bundleOf(emulator: WaEmulator, jid: string): Promise<PreKeyBundle | null> {
  const account = emulator.world.byJid(jid);
  if (!account) return null;
  const device = jidDecode(jid)?.device ?? 0;
  if (device === 0) return account.signal.bundle();
  const linked = account.devices.get(device);
  if (!linked?.signedPreKey) return null;
  const first = linked.preKeys.entries().next();
  let preKey: PreKeyBundle['preKey'] = null;
  if (!first.done) {
    const [id, pub] = first.value;
    linked.preKeys.delete(id);
    preKey = { id, public: pub };
  }
  return {
    registrationId: linked.registrationId,
    identity: linked.identityKey,
    signedPreKey: linked.signedPreKey,
    preKey,
  };
}

/** A bundle as `encrypt get key` answers it (rc14 Utils/signal.js parseAndInjectE2ESessions reads it). */
export function bundleNodes(b: PreKeyBundle): BinaryNode[] {
  const nodes: BinaryNode[] = [
    { tag: 'registration', attrs: {}, content: encodeBE(b.registrationId, 4) },
    { tag: 'type', attrs: {}, content: Buffer.from([5]) },
    { tag: 'identity', attrs: {}, content: b.identity },
    {
      tag: 'skey',
      attrs: {},
      content: [
        { tag: 'id', attrs: {}, content: encodeBE(b.signedPreKey.id, 3) },
        { tag: 'value', attrs: {}, content: b.signedPreKey.public },
        { tag: 'signature', attrs: {}, content: b.signedPreKey.signature },
      ],
    },
  ];
  if (b.preKey)
    nodes.push({
      tag: 'key',
      attrs: {},
      content: [
        { tag: 'id', attrs: {}, content: encodeBE(b.preKey.id, 3) },
        { tag: 'value', attrs: {}, content: b.preKey.public },
      ],
    });
  return nodes;
}

/** `value` big-endian in `bytes` bytes (registration ids, key ids). */
export function encodeBE(value: number, bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  out.writeUIntBE(value, 0, bytes);
  return out;
}
