import type { AppContext } from '../context.ts';

/** The PostgreSQL channel on which a node tells the others that a session has new due recipients. */
export const RECIPIENTS_QUEUED_CHANNEL = 'wa_recipients_queued';

/**
 * Wakes the dispatcher of a session at once: in-process for this node, and through
 * LISTEN/NOTIFY for the node that owns the session when that is another process. Losing the
 * notification only delays the send until the dispatcher's next poll.
 */
export async function signalRecipientsQueued(ctx: AppContext, sessionId: string): Promise<void> {
  ctx.events.emit('recipients-queued', sessionId);
  if (ctx.database.kind !== 'postgres') return;
  try {
    await ctx.database.notify(RECIPIENTS_QUEUED_CHANNEL, sessionId);
  } catch (err) {
    ctx.log.warn({ err, sessionId }, 'could not notify other nodes of queued recipients');
  }
}
