import { chatIdOfPhone, isLidJid } from '@wa/contract';
import { type AnyMessageContent, type BaileysEventMap, BufferJSON, jidNormalizedUser } from 'baileys';
import type { ReceiptUpdate, StatusPost } from '../types.ts';
import { digitsOfJid } from './mapping.ts';
import type { BaileysSocket } from './socket.ts';

/** rc14's STORIES_JID (WABinary/jid-utils.js): where every status goes. */
export const STATUS_JID = 'status@broadcast';

/**
 * Where each audience member's devices are asked and the post goes: the member's LID. WhatsApp Web
 * maps every Status recipient to its LID and leaves out those without one (whatsapp-rust PR #568,
 * "fix(status): use LID addressing, skip unresolvable recipients", quoting
 * WAWebEncryptAndSendStatusMsg's `compactMap(list, toUserLid)`), and the server refuses a Status
 * to phone-number JIDs from an account that has a LID with 479 (Baileys #2794, on rc14). The
 * LIDs come from the mappings rc14 stored (`stored`), then, for the rest, from one query of rc14's
 * own (Signal/lid-mapping.js getLIDsForPNs, which stores what it learns). An account without a LID
 * of its own addresses everyone by number, as rc14 does.
 */
export async function statusAudience(
  sock: BaileysSocket,
  audience: string[],
  stored: Map<string, string>,
  own: { id: string; lid: string | null },
): Promise<{ statusJidList: string[]; leftOut: string[] }> {
  const ownPn = digitsOfJid(own.id);
  const ownLid = own.lid ? jidNormalizedUser(own.lid) : null;
  if (!ownLid) return { statusJidList: [...audience, ...(ownPn ? [chatIdOfPhone(ownPn)] : [])], leftOut: [] };
  const lidOf = new Map(stored);
  const unknown = audience.filter((j) => !lidOf.has(j));
  if (unknown.length > 0) {
    const pairs = (await sock.signalRepository.lidMapping.getLIDsForPNs(unknown)) ?? [];
    for (const { pn, lid } of pairs) lidOf.set(jidNormalizedUser(pn), jidNormalizedUser(lid));
  }
  const statusJidList: string[] = [];
  const leftOut: string[] = [];
  for (const jid of audience) {
    const lid = lidOf.get(jid);
    if (lid) statusJidList.push(lid);
    else leftOut.push(jid);
  }
  // The account's own LID: the post shows under "My status" on its phone (rc14 does not add it).
  statusJidList.push(ownLid);
  return { statusJidList, leftOut };
}

/**
 * Posts one Status (Socket/messages-send.js sendMessage → relayMessage with `statusJidList`):
 * rc14 asks WhatsApp for every audience member's devices, encrypts the post once with a sender
 * key and sends that key to each device, all in one stanza under one message id. A text's colour
 * goes as a hex string: rc14's assertColor (Utils/messages.js) returns nothing for a number.
 * Returns the post as rc14 built it (kept for retry receipts, as a message's copy is).
 */
export async function postStatus(
  sock: BaileysSocket,
  post: StatusPost,
  statusJidList: string[],
  messageId: string,
): Promise<{ messageId: string; kept: string | undefined }> {
  const content: AnyMessageContent =
    post.kind === 'text'
      ? { text: post.text }
      : post.as === 'image'
        ? { image: post.data, caption: post.caption, mimetype: post.mime }
        : { video: post.data, caption: post.caption, mimetype: post.mime };
  const sent = await sock.sendMessage(STATUS_JID, content, {
    messageId,
    statusJidList,
    ...(post.kind === 'text' ? { backgroundColor: post.backgroundColor, font: post.font } : {}),
  });
  if (!sent?.key.id) throw new Error('WhatsApp did not accept the status');
  return {
    messageId: sent.key.id,
    kept: sent.message ? JSON.stringify(sent.message, BufferJSON.replacer) : undefined,
  };
}

/**
 * Views of our statuses: rc14 (Socket/messages-recv.js handleReceipt) emits a receipt of
 * `status@broadcast` as `message-receipt.update` with the viewer as `receipt.userJid` (a phone
 * JID or a LID, which the socket's LID mapping turns into a number, Signal/lid-mapping.js). One
 * status id is shared by its whole audience: a receipt whose viewer is unknown is dropped,
 * never reported without `by`.
 */
export async function statusViews(
  sock: BaileysSocket,
  updates: BaileysEventMap['message-receipt.update'],
): Promise<ReceiptUpdate[]> {
  const out: ReceiptUpdate[] = [];
  for (const { key, receipt } of updates) {
    if (key.remoteJid !== STATUS_JID || !key.id || !receipt.userJid) continue;
    let viewer: string | null = receipt.userJid;
    if (isLidJid(viewer))
      viewer = await sock.signalRepository.lidMapping.getPNForLID(viewer).catch(() => null);
    const by = viewer ? digitsOfJid(viewer) : null;
    if (!by) continue;
    const read = Number(receipt.readTimestamp ?? 0);
    const delivered = Number(receipt.receiptTimestamp ?? 0);
    if (read) out.push({ messageId: key.id, status: 'read', at: new Date(read * 1000), by });
    else if (delivered)
      out.push({ messageId: key.id, status: 'delivered', at: new Date(delivered * 1000), by });
  }
  return out;
}
