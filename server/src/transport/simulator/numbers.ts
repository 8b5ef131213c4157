import { FAILURE_TEXTS, phoneOfJid } from '@wa/contract';
import { SendError } from '../types.ts';

/**
 * Numbers starting with these digits (country code 999 is unassigned) answer error 463, the
 * account restriction that pauses an account's queue: tests and demos produce it on demand.
 */
export const RESTRICTED_PREFIX = '999463';
/**
 * Numbers starting with these digits (a valid Indian range, so a CSV keeps them) time out: a
 * failure that a retry may fix (the web offers Retry Failed only for such failures);
 * the simulator fails them every time.
 */
export const TIMEOUT_PREFIX = '917040';
export const SIMULATED_TIMEOUT_REASON = 'Send timed out: delivery unknown';
export const SIMULATED_463_REASON =
  'Paused: WhatsApp restricted this account from starting new chats (error 463)';

/**
 * What the simulated network does with a one-to-one send to `digits`, by the number's pattern:
 * ending 0000 is not on WhatsApp, the prefixes above time out or are restricted (`onRestricted`
 * runs first, as Baileys reports WhatsApp's quota event before the refused send). Throws the
 * send's error; returns for a number that is delivered.
 */
export function checkSimulatedNumber(digits: string, onRestricted: () => void): void {
  if (digits.endsWith('0000')) throw new SendError('not-on-whatsapp', FAILURE_TEXTS.notOnWhatsApp);
  if (digits.startsWith(TIMEOUT_PREFIX)) throw new SendError('timeout', SIMULATED_TIMEOUT_REASON);
  if (digits.startsWith(RESTRICTED_PREFIX)) {
    onRestricted();
    throw new SendError('restricted', SIMULATED_463_REASON);
  }
}

/**
 * Numbers ending in these digits are on WhatsApp but their phone never confirms delivery (issue
 * 26: switched off, or the message cannot be decrypted there): no delivery or read receipt comes,
 * so the message goes undelivered after UNDELIVERED_AFTER_MS.
 */
export const NEVER_DELIVERED_SUFFIX = '0001';

/** Whether the simulated contact's phone sends receipts for a message to `chatId`. */
export const confirmsDelivery = (chatId: string): boolean =>
  !(phoneOfJid(chatId)?.endsWith(NEVER_DELIVERED_SUFFIX) ?? false);
