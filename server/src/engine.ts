import type { AppContext } from './context.ts';
import { startDispatcher } from './messaging/dispatcher.ts';
import { compactJobStats } from './messaging/jobs-repository.ts';
import { receiveReply } from './messaging/opt-outs.ts';
import { type RunnerHooks, startSessionRunner } from './sessions/runner.ts';
import type { SessionRuntime } from './sessions/runtime.ts';

export interface Engine {
  runtime: SessionRuntime;
  stop(): Promise<void>;
}

/** How often the jobs' figures by day are folded (job_stats: a row per finished job until then). */
const COMPACT_STATS_MS = 60_000;

/**
 * What this node does with what its accounts receive: a one-to-one text that is an opt-out
 * keyword puts its sender on the account owner's opt-out list (messaging/opt-outs.ts).
 */
export function runnerHooks(ctx: AppContext): RunnerHooks {
  return {
    incomingText: async (userId, sessionId, message) => {
      if (await receiveReply(ctx, userId, message))
        ctx.log.info({ sessionId, from: message.from }, 'opt-out keyword received: number opted out');
    },
  };
}

/**
 * Starts this node's background work: the session runner (leases and live connections),
 * the dispatcher (sending due recipients of the sessions this node owns) and the folding of
 * job_stats.
 */
export async function startEngine(ctx: AppContext): Promise<Engine> {
  const runtime = await startSessionRunner(ctx, undefined, runnerHooks(ctx));
  const dispatcher = await startDispatcher(ctx, runtime);
  const compact = setInterval(() => {
    compactJobStats(ctx.db).catch((err: unknown) => ctx.log.error({ err }, 'folding job_stats failed'));
  }, COMPACT_STATS_MS);
  compact.unref();
  return {
    runtime,
    stop: async () => {
      clearInterval(compact);
      await dispatcher.stop();
      await runtime.stop();
    },
  };
}
