import { chatIdOfPhone, isPhoneJid } from '@wa/contract';
import type { AppContext } from './context.ts';
import { type DispatcherOptions, startDispatcher } from './messaging/engine/dispatcher.ts';
import { reply } from './messaging/engine/transitions.ts';
import { compactJobStats } from './messaging/jobs/repository.ts';
import { takeOptOutReply } from './messaging/opt-outs.ts';
import { startSessionRunner } from './sessions/runner.ts';
import type { SessionRuntime, SessionRuntimeEvents } from './sessions/runtime.ts';
import { type DelivererOptions, WebhookDeliverer } from './webhooks/deliverer.ts';

export interface Engine {
  runtime: SessionRuntime;
  stop(): Promise<void>;
}

/** How often the jobs' figures by day are folded (job_stats: a row per finished job until then). */
const COMPACT_STATS_MS = 60_000;

/**
 * What this node does with what its accounts receive: a one-to-one text marks the account's latest
 * send to that number replied (within 7 days), and one that is an opt-out keyword puts its sender
 * on the account owner's opt-out list (messaging/opt-outs.ts) and, when the owner asked for it,
 * answers once in the word's language.
 * Returns the unsubscribe.
 */
export function takeReplies(ctx: AppContext, runtime: SessionRuntime): () => void {
  const onIncoming: (...args: SessionRuntimeEvents['incoming']) => void = (sessionId, userId, message) => {
    // A reply to the account's latest send to that number within 7 days; a STOP too.
    if (isPhoneJid(message.from))
      reply(ctx.db, sessionId, message.from, message.text).catch((err: unknown) =>
        ctx.log.error({ err, sessionId }, 'recording a reply failed'),
      );
    takeOptOutReply(ctx, userId, message, sessionId)
      .then(async (result) => {
        if (!result?.added) return;
        ctx.log.info({ sessionId, from: message.from }, 'opt-out keyword received: number opted out');
        // The user's one answer to a new opt-out: not a job, not charged.
        const transport = result.confirmation ? runtime.transportFor(sessionId) : undefined;
        const to = message.from.includes('@') ? message.from : chatIdOfPhone(message.from);
        if (transport) await transport.send(to, { kind: 'text', text: result.confirmation! });
      })
      .catch((err: unknown) => ctx.log.error({ err, sessionId }, 'an incoming message could not be handled'));
  };
  runtime.on('incoming', onIncoming);
  return () => runtime.off('incoming', onIncoming);
}

/** `dispatcher`: how often its sweep starts due occurrences (tests: at every sweep, not every 5 s). */
export type EngineOptions = {
  webhooks?: DelivererOptions;
  dispatcher?: Pick<DispatcherOptions, 'occurrenceCheckMs'>;
};

/**
 * Starts this node's background work: the session runner (leases and live connections),
 * the dispatcher (sending due recipients of the sessions this node owns), the webhook
 * deliverer and the folding of job_stats.
 */
export async function startEngine(ctx: AppContext, options: EngineOptions = {}): Promise<Engine> {
  const runtime = await startSessionRunner(ctx);
  const stopReplies = takeReplies(ctx, runtime);
  const dispatcher = await startDispatcher(ctx, runtime, options.dispatcher);
  const webhooks = new WebhookDeliverer(ctx, options.webhooks).start();
  const compact = setInterval(() => {
    compactJobStats(ctx.db).catch((err: unknown) => ctx.log.error({ err }, 'folding job_stats failed'));
  }, COMPACT_STATS_MS);
  compact.unref();
  return {
    runtime,
    stop: async () => {
      clearInterval(compact);
      await webhooks.stop();
      await dispatcher.stop();
      await runtime.stop();
      stopReplies();
    },
  };
}
