import type { EventEmitter } from 'node:events';
import type { AccountOutcome, QuotaUpdate, Transport, UndeliveredCause } from '../transport/types.ts';

/**
 * The account runtime's domain events: the one door through which what the accounts' transports
 * report reaches the layers above accounts/ (only the account runner listens to a transport).
 */
export type AccountRuntimeEvents = {
  /** This node's transport for the account is connected and may send. */
  connected: [accountId: string];
  /** The account stopped being usable on this node (closed, released, logged out). */
  disconnected: [accountId: string];
  /**
   * What came back to one of the user's accounts: a receipt, a refusal after the send, a message
   * someone wrote to it (the outcomes every provider reports; messaging/outcomes.ts takes them).
   */
  outcome: [accountId: string, userId: string, outcome: AccountOutcome];
  /** Why some sent messages of the account may never arrive (not on WhatsApp, decryption given up). */
  'undelivered-cause': [accountId: string, cause: UndeliveredCause];
  /** WhatsApp restricts the account's new chats, or lifts it (accounts/ has written the pause). */
  restricted: [accountId: string, update: QuotaUpdate];
};

/** What the account runner of this node offers the dispatcher and the other layers above. */
export interface AccountRuntime extends EventEmitter<AccountRuntimeEvents> {
  /** The connected transport of an account this node drives, or undefined. */
  transportFor(accountId: string): Transport | undefined;
  /** The accounts whose lease this node holds now. */
  ownedAccountIds(): string[];
  stop(): Promise<void>;
}
