import { jidUser } from '@wa/contract';
import type { ReceiptUpdate, StatusPost } from '../types.ts';
import { readsMessages } from './network.ts';
import { confirmsDelivery } from './numbers.ts';

/** What the simulator records for a Status it accepted (a line of the outbox, like a message). */
export type SimulatedStatus = {
  accountId: string;
  messageId: string;
  chatId: 'status@broadcast';
  type: 'status';
  text: string | null;
  caption: string | null;
  backgroundColor: string | null;
  font: number | null;
  mime: string | null;
  mediaAs: 'image' | 'video' | null;
  size: number | null;
  audience: string[];
  sentAt: string;
};

export function simulatedStatus(
  accountId: string,
  messageId: string,
  post: StatusPost,
  audience: string[],
): SimulatedStatus {
  return {
    accountId,
    messageId,
    chatId: 'status@broadcast',
    type: 'status',
    text: post.kind === 'text' ? post.text : null,
    caption: post.kind === 'media' ? post.caption : null,
    backgroundColor: post.kind === 'text' ? post.backgroundColor : null,
    font: post.kind === 'text' ? post.font : null,
    mime: post.kind === 'media' ? post.mime : null,
    mediaAs: post.kind === 'media' ? post.as : null,
    size: post.kind === 'media' ? post.data.length : null,
    audience,
    sentAt: new Date().toISOString(),
  };
}

/**
 * The receipts a status gets on the simulated network, as rc14 reports real ones
 * (Socket/messages-recv.js handleReceipt: `message-receipt.update` with the viewer as
 * `receipt.userJid`): every audience member whose phone confirms delivery (numbers.ts) gets it,
 * and those who read their messages (network.ts readsMessages, about half) view it. Numbers not
 * on WhatsApp (ending 0000) get nothing.
 */
export function statusReceipts(
  messageId: string,
  audience: string[],
): { delivered: ReceiptUpdate[]; viewed: ReceiptUpdate[] } {
  const delivered: ReceiptUpdate[] = [];
  const viewed: ReceiptUpdate[] = [];
  for (const chatId of audience) {
    const by = jidUser(chatId);
    if (by.endsWith('0000') || !confirmsDelivery(chatId)) continue;
    delivered.push({ messageId, status: 'delivered', at: new Date(), by });
    if (readsMessages(chatId)) viewed.push({ messageId, status: 'read', at: new Date(), by });
  }
  return { delivered, viewed };
}
