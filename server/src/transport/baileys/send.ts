import { SendError } from '../types.ts';
import { messageOf, statusCodeOf } from './mapping.ts';

export const RATE_LIMITED = 'WhatsApp asked this account to slow down (rate-overlimit): sending again later';

/** A send that Baileys or WhatsApp refused, as a SendError (query errors carry the code in `data`). */
export function sendErrorOf(err: unknown): SendError {
  const data = (err as { data?: unknown }).data;
  const code = typeof data === 'number' ? data : statusCodeOf(err);
  const text = messageOf(err);
  if (code === 429 || /rate-overlimit/i.test(text)) return new SendError('rate-limited', RATE_LIMITED);
  if (code === 463)
    return new SendError('restricted', 'Paused: WhatsApp restricted this account (error 463)');
  if (code === 403 || /not-authorized|forbidden/i.test(text))
    return new SendError('not-admin', 'Only admins can send messages to this group');
  if (code === 404 || /item-not-found/i.test(text))
    return new SendError('not-in-group', 'Not a member of this group');
  if (code === 408 || /timed out/i.test(text)) return new SendError('timeout', `Timed out: ${text}`);
  if (code === 428 || /connection closed/i.test(text))
    return new SendError('not-connected', 'Session is not connected');
  return new SendError('unknown', text);
}

/**
 * The acks of sent messages, by message id. An ack may arrive before the send's caller starts
 * waiting for it: it is kept until then.
 */
export class AckTracker {
  private readonly waiters = new Map<string, (error: string | null) => void>();
  private readonly early = new Map<string, string | null>();

  constructor(private readonly waitMs: number) {}

  settle(messageId: string, error: string | null): void {
    const waiter = this.waiters.get(messageId);
    if (waiter) {
      waiter(error);
      return;
    }
    this.early.set(messageId, error);
    if (this.early.size > 1000) this.early.delete(this.early.keys().next().value!);
  }

  /** A receipt settles a waiting send, but is not kept when nobody waits. */
  settleIfWaiting(messageId: string): void {
    this.waiters.get(messageId)?.(null);
  }

  wait(messageId: string): Promise<string | null> {
    if (this.early.has(messageId)) {
      const error = this.early.get(messageId)!;
      this.early.delete(messageId);
      return Promise.resolve(error);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(messageId);
        resolve(null);
      }, this.waitMs);
      this.waiters.set(messageId, (error) => {
        clearTimeout(timer);
        this.waiters.delete(messageId);
        resolve(error);
      });
    });
  }
}
