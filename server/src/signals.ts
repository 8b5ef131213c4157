import type { AppContext, NodeEvents } from './context.ts';

/**
 * One mechanism for the wake-ups between the HTTP layer and the engine: an event on the
 * context for this node and, on PostgreSQL, a NOTIFY on the signal's channel for the others.
 * Listeners also poll, so a lost notification only delays the reaction.
 */
export type NodeSignal = keyof NodeEvents;

/** The PostgreSQL channel of each signal. */
export const SIGNAL_CHANNELS: Record<NodeSignal, string> = {
  'recipients-queued': 'wa_recipients_queued',
  'session-changed': 'wa_session_changed',
};

/** Tells this node at once and the other nodes through NOTIFY that `accountId` has news. */
export async function signal(ctx: AppContext, name: NodeSignal, accountId: string): Promise<void> {
  ctx.events.emit(name, accountId);
  if (ctx.database.kind !== 'postgres') return;
  try {
    await ctx.database.notify(SIGNAL_CHANNELS[name], accountId);
  } catch (err) {
    ctx.log.warn(
      { err, accountId, signal: name },
      'could not notify other nodes; they will see it when they poll',
    );
  }
}

/** Calls `handler` for the signal from this node and (on PostgreSQL) from the others; resolves to an unsubscribe. */
export async function onSignal(
  ctx: AppContext,
  name: NodeSignal,
  handler: (accountId: string) => void,
): Promise<() => Promise<void>> {
  ctx.events.on(name, handler);
  const unlisten =
    ctx.database.kind === 'postgres'
      ? await ctx.database.listen(SIGNAL_CHANNELS[name], handler).catch((err) => {
          ctx.log.warn({ err, signal: name }, 'LISTEN failed: other nodes reach this one by polling only');
          return null;
        })
      : null;
  return async () => {
    ctx.events.off(name, handler);
    await unlisten?.();
  };
}
