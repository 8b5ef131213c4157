import type { AppContext } from '../context.ts';

/** The PostgreSQL channel on which nodes tell each other that a session's row changed. */
export const SESSION_CHANNEL = 'wa_session_changed';

/**
 * Tells the runner of this node at once and, on PostgreSQL, the other nodes through NOTIFY.
 * Runners also poll, so a lost notification only delays the reaction.
 */
export async function signalSessionChanged(ctx: AppContext, sessionId: string): Promise<void> {
  ctx.events.emit('session-changed', sessionId);
  if (ctx.database.kind !== 'postgres') return;
  try {
    await ctx.database.notify(SESSION_CHANNEL, sessionId);
  } catch (err) {
    ctx.log.warn({ err, sessionId }, 'could not notify other nodes; they will see the change when they poll');
  }
}
