import type { AppContext } from './context.ts';

export interface Engine {
  stop(): Promise<void>;
}

/**
 * Starts this node's background work: the session runner (leases and live connections)
 * and the dispatcher (sending due recipients of the sessions this node owns).
 */
export async function startEngine(_ctx: AppContext): Promise<Engine> {
  return { stop: async () => {} };
}
