import { chatIdOfPhone } from '@wa/contract';
import type { AppContext } from './context.ts';
import { type DispatcherOptions, startDispatcher } from './messaging/engine/dispatcher.ts';
import { startErasureCompaction } from './messaging/erasure-compaction.ts';
import { compactJobStats } from './messaging/jobs/repository.ts';
import { takeOutcomes } from './messaging/outcomes.ts';
import { startDueOccurrences } from './messaging/series/occurrences.ts';
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
 * What this node's accounts receive, taken through the engine's one door for outcomes
 * (messaging/outcomes.ts): a reply marks the send it answers, an opt-out word opts its sender out
 * and, when the owner asked for it, is answered once through the account's own transport.
 * Returns the unsubscribe.
 */
export function takeReplies(ctx: AppContext, runtime: SessionRuntime): () => void {
  const onIncoming: (...args: SessionRuntimeEvents['incoming']) => void = (sessionId, userId, message) => {
    const answer = async (to: string, text: string) => {
      const transport = runtime.transportFor(sessionId);
      if (transport) await transport.send(to.includes('@') ? to : chatIdOfPhone(to), { kind: 'text', text });
    };
    takeOutcomes(ctx, { sessionId, userId }, [{ type: 'incoming', message }], { by: null, answer }).catch(
      (err: unknown) => ctx.log.error({ err, sessionId }, 'an incoming message could not be handled'),
    );
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
  const dispatcher = await startDispatcher(ctx, runtime, { ...options.dispatcher, startDueOccurrences });
  const webhooks = new WebhookDeliverer(ctx, options.webhooks).start();
  const compact = setInterval(() => {
    compactJobStats(ctx.db).catch((err: unknown) => ctx.log.error({ err }, 'folding job_stats failed'));
  }, COMPACT_STATS_MS);
  compact.unref();
  const stopErasureCompaction = startErasureCompaction(ctx);
  return {
    runtime,
    stop: async () => {
      clearInterval(compact);
      stopErasureCompaction();
      await webhooks.stop();
      await dispatcher.stop();
      await runtime.stop();
      stopReplies();
    },
  };
}
