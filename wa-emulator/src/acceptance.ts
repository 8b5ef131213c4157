import { type BinaryNode, getBinaryNodeChild, getBinaryNodeChildren, jidDecode } from 'baileys';
import type { WaEmulator } from './emulator.ts';
import type { Account } from './world.ts';

/**
 * Whether the server takes a message stanza, before it acks it: the error code it refuses it
 * with, or null. rc14 names the codes it gets back in Socket/messages-recv.js handleBadAck:
 *
 * - 479 `smax-invalid`, "stanza rejected by server — likely stale device session or malformed
 *   addressing": a one-to-one stanza whose participants mix phone-number and LID addresses
 *   (rc14 relayMessage addresses every device of a one-to-one chat, the sender's own included,
 *   in the destination's addressing), or that names a device the account no longer has (a
 *   companion unlinked since the sender's device list was read).
 * - 479 for a Status with a phone-number participant (below).
 * - 463, "1:1 message missing privacy token (tctoken) … WhatsApp blocks starting new chats but
 *   preserves existing ones, since established chats already carry a tctoken": the sender may
 *   not start new chats (its reach-out timelock) and the stanza carries no `<tctoken>` that the
 *   recipient issued to it (rc14 relayMessage adds the stored token when the server's props say
 *   `privacy_token_sending_on_all_1_on_1_messages`).
 */
export function refusalOf(emulator: WaEmulator, sender: Account, node: BinaryNode): number | null {
  const to = node.attrs.to ?? '';
  const server = jidDecode(to)?.server;
  const targets = getBinaryNodeChildren(getBinaryNodeChild(node, 'participants'), 'to').map(
    (t) => t.attrs.jid ?? '',
  );
  // A Status is addressed by LID: WhatsApp Web maps every recipient to its LID
  // (WAWebEncryptAndSendStatusMsg, quoted in whatsapp-rust PR #568), and a Status to phone-number
  // JIDs from an account that has a LID is refused with 479 (Baileys #2794, on rc14). Every
  // emulated account has one.
  if (to === 'status@broadcast') return targets.some((jid) => jidDecode(jid)?.server !== 'lid') ? 479 : null;
  if (server !== 's.whatsapp.net' && server !== 'lid') return null;
  if (targets.some((jid) => jidDecode(jid)?.server !== server)) return 479;
  if (targets.some((jid) => stale(emulator, jid))) return 479;
  const recipient = emulator.world.byJid(to);
  const locked = sender.reachoutLockedUntil;
  if (recipient && recipient !== sender && locked && locked.getTime() > Date.now()) {
    const token = getBinaryNodeChild(node, 'tctoken')?.content;
    const issued = emulator.world.privacyToken(recipient, sender);
    if (!issued || !(token instanceof Uint8Array) || !issued.equals(Buffer.from(token))) return 463;
  }
  return null;
}

/** A device JID naming a companion its account no longer has (device 0 is the phone itself). */
function stale(emulator: WaEmulator, jid: string): boolean {
  const device = jidDecode(jid)?.device ?? 0;
  const account = emulator.world.byJid(jid);
  return !!account && device !== 0 && !account.devices.has(device);
}
