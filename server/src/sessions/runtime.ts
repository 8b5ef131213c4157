import type { EventEmitter } from 'node:events';
import type { AccountOutcome, QuotaUpdate, Transport, UndeliveredCause } from '../transport/types.ts';

/**
 * The session runtime's domain events: the one door through which what the accounts' transports
 * report reaches the layers above sessions/ (only the session runner listens to a transport).
 */
export type SessionRuntimeEvents = {
  /** This node's transport for the session is connected and may send. */
  connected: [sessionId: string];
  /** The session stopped being usable on this node (closed, released, logged out). */
  disconnected: [sessionId: string];
  /**
   * What came back to one of the user's accounts: a receipt, a refusal after the send, a message
   * someone wrote to it (the outcomes every provider reports; messaging/outcomes.ts takes them).
   */
  outcome: [sessionId: string, userId: string, outcome: AccountOutcome];
  /** Why some sent messages of the account may never arrive (not on WhatsApp, decryption given up). */
  'undelivered-cause': [sessionId: string, cause: UndeliveredCause];
  /** WhatsApp restricts the account's new chats, or lifts it (sessions/ has written the pause). */
  restricted: [sessionId: string, update: QuotaUpdate];
};

/** What the session runner of this node offers the dispatcher and the other layers above. */
export interface SessionRuntime extends EventEmitter<SessionRuntimeEvents> {
  /** The connected transport of a session this node drives, or undefined. */
  transportFor(sessionId: string): Transport | undefined;
  /** The sessions whose lease this node holds now. */
  ownedSessionIds(): string[];
  stop(): Promise<void>;
}
