import { startAccountRunner } from './accounts/runner.ts';
import type { AccountRuntime } from './accounts/runtime.ts';
import type { AppContext } from './context.ts';
import { type DispatcherOptions, startDispatcher } from './messaging/engine/dispatcher.ts';
import { startErasureCompaction } from './messaging/erasure-compaction.ts';
import { createDueFollowUps } from './messaging/follow-up/scheduled.ts';
import { compactJobStats } from './messaging/jobs/repository.ts';
import { startOutcomeBatches } from './messaging/outcome-batches.ts';
import { startDueOccurrences } from './messaging/series/occurrences.ts';
import { type DelivererOptions, WebhookDeliverer } from './webhooks/deliverer.ts';

export interface Engine {
  runtime: AccountRuntime;
  stop(): Promise<void>;
}

/** How often the jobs' figures by day are folded (job_stats: a row per finished job until then). */
const COMPACT_STATS_MS = 60_000;

/** `dispatcher`: how often its sweep starts due occurrences (tests: at every sweep, not every 5 s). */
export type EngineOptions = {
  webhooks?: DelivererOptions;
  dispatcher?: Pick<DispatcherOptions, 'occurrenceCheckMs'>;
};

/**
 * Starts this node's background work: the account runner (leases and live connections), the
 * batches of what its accounts report (receipts, refusals, replies: messaging/outcome-batches.ts),
 * the dispatcher (sending due recipients of the accounts this node owns), the webhook deliverer
 * and the folding of job_stats.
 */
export async function startEngine(ctx: AppContext, options: EngineOptions = {}): Promise<Engine> {
  const runtime = await startAccountRunner(ctx);
  const outcomes = startOutcomeBatches(ctx, runtime);
  // Occurrences of repeating sends and follow-ups whose time has come, on the same sweep.
  const startDue = async (c: AppContext) => {
    await startDueOccurrences(c);
    await createDueFollowUps(c);
  };
  const dispatcher = await startDispatcher(ctx, runtime, {
    ...options.dispatcher,
    startDueOccurrences: startDue,
  });
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
      await outcomes.stop();
      await runtime.stop();
    },
  };
}
