import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  type BinaryNode,
  getBinaryNodeChild,
  getBinaryNodeChildren,
  jidDecode,
  normalizeMessageContent,
  type proto,
} from 'baileys';
import { refusalOf } from './acceptance.ts';
import type { Connection } from './connection.ts';
import type { WaEmulator } from './emulator.ts';
import { channelPost } from './newsletters.ts';
import type { Account, ReceivedMessage } from './world.ts';

/** The text a person sees: a text, a caption, a poll's name. */
export function textOf(message: proto.IMessage): string | null {
  const m = normalizeMessageContent(message);
  if (!m) return null;
  return (
    m.conversation ??
    m.extendedTextMessage?.text ??
    m.imageMessage?.caption ??
    m.videoMessage?.caption ??
    m.documentMessage?.caption ??
    m.pollCreationMessage?.name ??
    m.pollCreationMessageV2?.name ??
    m.pollCreationMessageV3?.name ??
    null
  );
}

const now = () => String(Math.floor(Date.now() / 1000));

/**
 * The fan-out of a relayed message to its phones, which give the event loop back every
 * BREATHE_MS: the server is another machine, so its decryptions for a 1,500-member group must
 * not hold the linked device's socket in this process (its acks unread, its keep-alive timing
 * out: rc14 Socket/socket.js closes after keepAliveIntervalMs + 5 s without a frame).
 */
const BREATHE_MS = 10;
function fanOut(): () => Promise<void> {
  let last = performance.now();
  return async () => {
    if (performance.now() - last < BREATHE_MS) return;
    await nextTurn();
    last = performance.now();
  };
}

/**
 * A message stanza from a companion: the server acks it, then every phone it names decrypts its
 * copy (pairwise `pkmsg`/`msg`; in a group the sender key from the pairwise copy, then the
 * `skmsg`), keeps the plaintext, and sends a delivery receipt and, a little later, a read receipt.
 */
export async function relay(
  emulator: WaEmulator,
  conn: Connection,
  node: BinaryNode,
  { ack = true }: { ack?: boolean } = {},
): Promise<void> {
  const sender = conn.account;
  const device = conn.device;
  const id = node.attrs.id ?? '';
  const to = node.attrs.to ?? '';
  if (!sender || !device) return;
  if (to.endsWith('@newsletter')) return channelPost(emulator, conn, node);
  // The server acks only what it takes: a refused stanza is acked with its error code and goes
  // nowhere (acceptance.ts; rc14 Socket/messages-recv.js handleBadAck).
  const refusal = emulator.takeSendFault(sender.phone) ?? refusalOf(emulator, sender, node);
  if (refusal) {
    emulator.log(`REFUSED ${id} to ${to}: ${refusal}`);
    conn.send({ tag: 'ack', attrs: { class: 'message', id, from: to, t: now(), error: String(refusal) } });
    return;
  }
  if (ack) conn.send({ tag: 'ack', attrs: { class: 'message', id, from: to, t: now() } });
  const isGroup = to.endsWith('@g.us');
  const lidMode = isGroup && node.attrs.addressing_mode === 'lid';
  // A phone keeps one session per sending device, whichever address (PN or LID) a stanza uses;
  // the sender's side keys it by the LID once it knows the mapping (rc14 Signal/libsignal.js).
  const senderJid = `${sender.phone}:${device.id}@s.whatsapp.net`;
  const decrypted = new Map<Account, proto.IMessage>();
  const breathe = fanOut();
  for (const target of getBinaryNodeChildren(getBinaryNodeChild(node, 'participants'), 'to')) {
    await breathe();
    const account = emulator.world.byJid(target.attrs.jid ?? '');
    const enc = getBinaryNodeChild(target, 'enc');
    // Only the phones (device 0) are emulated; copies for other companions are not read.
    if (!account || !enc || (jidDecode(target.attrs.jid)?.device ?? 0) !== 0) continue;
    const type = enc.attrs.type as 'pkmsg' | 'msg';
    try {
      decrypted.set(account, await account.signal.decrypt(senderJid, type, enc.content as Uint8Array));
    } catch (err) {
      emulator.log(`DECRYPT FAILED ${id} for ${account.phone}: ${(err as Error).message}`);
    }
  }
  if (to === 'status@broadcast') {
    await relayStatus(emulator, { id, sender, senderJid, node, decrypted });
    return;
  }
  if (isGroup) {
    const group = emulator.world.groups.get(to.split('@')[0]!);
    const skmsg = getBinaryNodeChildren(node, 'enc').find((e) => e.attrs.type === 'skmsg');
    if (!group || !skmsg) return;
    for (const member of group.members) {
      if (member.phone === sender.phone) continue;
      await breathe();
      const account = emulator.world.account(member.phone);
      try {
        const pairwise = decrypted.get(account);
        const skdm = pairwise && normalizeMessageContent(pairwise)?.senderKeyDistributionMessage;
        if (skdm) await account.signal.takeSenderKey(skdm, senderJid);
        const message = await account.signal.decryptGroup(to, senderJid, skmsg.content as Uint8Array);
        keep(account, { id, from: sender.phone, chat: to, kind: 'group', message });
        const participant = lidMode ? `${account.lid}@lid` : `${account.phone}@s.whatsapp.net`;
        emulator.receipts(sender.phone, { id, from: to, participant });
      } catch (err) {
        emulator.log(`GROUP DECRYPT FAILED ${id} for ${account.phone}: ${(err as Error).message}`);
      }
    }
    return;
  }
  for (const [account, message] of decrypted) {
    if (account === sender) {
      const sent = normalizeMessageContent(message)?.deviceSentMessage;
      keep(account, { id, from: sender.phone, chat: to, kind: 'sent', message: sent?.message ?? message });
      continue;
    }
    keep(account, { id, from: sender.phone, chat: to, kind: 'chat', message });
    emulator.receipts(sender.phone, { id, from: to });
  }
}

/**
 * A Status post, answering rc14's Socket/messages-send.js relayMessage `isStatus`: no
 * group metadata, the audience is `statusJidList` (whose devices rc14 asked by usync, iq.ts), the
 * body is one `skmsg` under the sender key of 'status@broadcast', and that key goes pairwise to
 * every device (sender-key memory is skipped for a status). Each phone takes the key from its
 * pairwise copy, decrypts the post and keeps it as 'status'; a viewer (world.statusViewers) sends
 * its receipts from 'status@broadcast' naming itself as `participant` in the address the post
 * came to it by, which rc14's Socket/messages-recv.js handleReceipt turns into
 * `message-receipt.update` with `userJid`; the sender's own phone ("My status") sends none. A post
 * sent again on a retry receipt (rc14 sendMessagesAgain → relayMessage with `participant`) has
 * no `skmsg`: the pairwise copy is the post itself, which the phone keeps once.
 */
async function relayStatus(
  emulator: WaEmulator,
  post: {
    id: string;
    sender: Account;
    senderJid: string;
    node: BinaryNode;
    decrypted: Map<Account, proto.IMessage>;
  },
): Promise<void> {
  const { id, sender, senderJid, node, decrypted } = post;
  const skmsg = getBinaryNodeChildren(node, 'enc').find((e) => e.attrs.type === 'skmsg');
  const addressedBy = new Map<Account, string>();
  for (const target of getBinaryNodeChildren(getBinaryNodeChild(node, 'participants'), 'to')) {
    const account = emulator.world.byJid(target.attrs.jid ?? '');
    if (account) addressedBy.set(account, jidDecode(target.attrs.jid)?.server ?? 's.whatsapp.net');
  }
  for (const [account, pairwise] of decrypted) {
    try {
      let message = pairwise;
      if (skmsg) {
        const skdm = normalizeMessageContent(pairwise)?.senderKeyDistributionMessage;
        if (skdm) await account.signal.takeSenderKey(skdm, senderJid);
        message = await account.signal.decryptGroup(
          'status@broadcast',
          senderJid,
          skmsg.content as Uint8Array,
        );
      }
      keep(account, { id, from: sender.phone, chat: 'status@broadcast', kind: 'status', message });
      if (account === sender || !skmsg) continue;
      const viewers = emulator.world.statusViewers;
      const participant =
        addressedBy.get(account) === 'lid' ? `${account.lid}@lid` : `${account.phone}@s.whatsapp.net`;
      emulator.receipts(
        sender.phone,
        { id, from: 'status@broadcast', participant },
        { read: viewers === null || viewers.has(account.phone) },
      );
    } catch (err) {
      emulator.log(`STATUS DECRYPT FAILED ${id} for ${account.phone}: ${(err as Error).message}`);
    }
  }
}

/**
 * A phone keeps a message once: a message sent again under the same id (after a socket cut
 * before the server's ack, as whatsmeow request.go retryFrame sends an interrupted frame again)
 * is the one it has. A client keys a message by its sender and id (WAProto MessageKey;
 * rc14 Utils/event-buffer.js merges upserts of one key).
 */
function keep(account: Account, m: Omit<ReceivedMessage, 'text' | 'at'>): void {
  if (account.inbox.some((k) => k.id === m.id && k.from === m.from && k.kind === m.kind)) return;
  account.inbox.push({ ...m, text: textOf(m.message), at: new Date() });
}
