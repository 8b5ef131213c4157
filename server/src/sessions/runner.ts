import { EventEmitter } from 'node:events';
import type { AppContext } from '../context.ts';
import type { SessionRuntime, SessionRuntimeEvents } from './runtime.ts';

/** Drives the sessions this node holds a lease on. (Being built: issue 3.) */
export async function startSessionRunner(_ctx: AppContext): Promise<SessionRuntime> {
  const runtime = Object.assign(new EventEmitter<SessionRuntimeEvents>(), {
    transportFor: () => undefined,
    ownedSessionIds: () => [],
    stop: async () => {},
  });
  return runtime;
}
