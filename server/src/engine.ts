import type { AppContext } from './context.ts';
import { startDispatcher } from './messaging/dispatcher.ts';
import { startSessionRunner } from './sessions/runner.ts';
import type { SessionRuntime } from './sessions/runtime.ts';

export interface Engine {
  runtime: SessionRuntime;
  stop(): Promise<void>;
}

/**
 * Starts this node's background work: the session runner (leases and live connections)
 * and the dispatcher (sending due recipients of the sessions this node owns).
 */
export async function startEngine(ctx: AppContext): Promise<Engine> {
  const runtime = await startSessionRunner(ctx);
  const dispatcher = await startDispatcher(ctx, runtime);
  return {
    runtime,
    stop: async () => {
      await dispatcher.stop();
      await runtime.stop();
    },
  };
}
