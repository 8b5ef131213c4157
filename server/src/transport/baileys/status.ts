import { chatIdOfPhone, isLidJid } from '@wa/contract';
import type { AnyMessageContent, BaileysEventMap } from 'baileys';
import type { ReceiptUpdate, StatusPost } from '../types.ts';
import { digitsOfJid } from './mapping.ts';
import type { BaileysSocket } from './socket.ts';

/** rc14's STORIES_JID (WABinary/jid-utils.js): where every status goes. */
export const STATUS_JID = 'status@broadcast';

/**
 * Posts one Status (Socket/messages-send.js sendMessage → relayMessage with `statusJidList`):
 * rc14 asks WhatsApp for every audience member's devices, encrypts the post once with a sender
 * key and sends that key to each device. The account's own number is added so that the post
 * also shows under "My status" on its phone (rc14 does not add it). A text's colour goes as a
 * hex string: rc14's assertColor (Utils/messages.js) returns nothing for a number.
 */
export async function postStatus(
  sock: BaileysSocket,
  post: StatusPost,
  audience: string[],
  ownJid: string,
  messageId: string,
): Promise<{ messageId: string; kept: string | undefined }> {
  const statusJidList = [...audience];
  const own = digitsOfJid(ownJid);
  if (own) statusJidList.push(chatIdOfPhone(own));
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
  return { messageId: sent.key.id, kept: undefined };
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
