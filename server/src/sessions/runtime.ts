import type { EventEmitter } from 'node:events';
import type { Transport } from '../transport/types.ts';

export type SessionRuntimeEvents = {
  /** This node's transport for the session is connected and may send. */
  connected: [sessionId: string];
  /** The session stopped being usable on this node (closed, released, logged out). */
  disconnected: [sessionId: string];
};

/** What the session runner of this node offers the dispatcher. */
export interface SessionRuntime extends EventEmitter<SessionRuntimeEvents> {
  /** The connected transport of a session this node drives, or undefined. */
  transportFor(sessionId: string): Transport | undefined;
  /** The sessions whose lease this node holds now. */
  ownedSessionIds(): string[];
  stop(): Promise<void>;
}
