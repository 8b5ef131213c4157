import type { AppContext } from '../context.ts';
import type { SessionRuntime } from '../sessions/runtime.ts';

/** Sends the due recipients of the sessions this node owns. (Being built: issue 4.) */
export async function startDispatcher(
  _ctx: AppContext,
  _runtime: SessionRuntime,
): Promise<{ stop(): Promise<void> }> {
  return { stop: async () => {} };
}
