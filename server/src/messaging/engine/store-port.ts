import type { UndeliveredCause } from '../../transport/types.ts';
import type { ClaimScope, PolicySource } from '../limits/allowance.ts';
import type { SentMessage } from './claim.ts';
import type { DispatchMessage } from './dispatch-message.ts';
import type { ClaimedRecipient, FailedGroup } from './transitions.ts';

/**
 * The engine's data source (as listmonk's manager depends on its DataSource): every statement
 * the dispatcher runs, each carrying its own side effects. An operation that fails recipients
 * refunds them and writes their ledger rows in the same statement; nothing outside the store
 * decides a refund.
 */
export interface DispatchStore extends PolicySource {
  /**
   * Claims up to `limit` due recipients of an account: `sending` with a lease before anything is
   * sent, in `scope` (the warm-up's and the new-contact caps: allowance.ts ClaimScope).
   */
  claim(accountId: string, limit: number, scope?: ClaimScope): Promise<ClaimedRecipient[]>;
  /**
   * For each of the given accounts whose queue is not paused and holds a queued recipient: the
   * milliseconds until its next one is due (0 when due now). One statement for a node's accounts,
   * so that idle accounts cost nothing per account.
   */
  msUntilNextDue(accountIds: string[]): Promise<Map<string, number>>;
  /**
   * Records a sent recipient with its job's counters, and keeps the transport's copy of the
   * message (`sent.kept`, wa_sent_messages); with `claimNextOf`, claims that account's next due
   * recipient in the same statement (one round trip per message when unpaced).
   */
  recordSent(
    recipientId: number,
    sent: SentMessage,
    claimNextOf?: string,
    scope?: ClaimScope,
  ): Promise<ClaimedRecipient | null>;
  /**
   * Fails a recipient this node is sending, counts it and refunds it; pauses its job when more
   * than half of its last 20 outcomes failed (the auto-pause).
   */
  fail(recipientId: number, error: string): Promise<void>;
  /** Puts claimed recipients that were never handed to the transport back in the queue. */
  release(recipientIds: number[]): Promise<void>;
  /**
   * The socket closed before WhatsApp acked the recipient's message: back in the queue, not
   * sent and not charged again, to go again under the same `messageId`.
   */
  releaseUnacked(recipientId: number, messageId: string): Promise<void>;
  /** Claimed recipients never sent go back in the queue, due at `until` (the transport said when). */
  defer(recipientIds: number[], until: Date): Promise<void>;
  /** Meta's 131049: the recipient waits until `until` (a limited number of times), then fails. */
  retryLater(recipientId: number, until: Date, title: string): Promise<void>;
  /**
   * Pauses the account's one-to-one sends (error 463, CAPPED) with the reason shown to the user,
   * until `until` when WhatsApp said (null: until the user resumes). Group sends go on.
   */
  pauseAccount(accountId: string, reason: string, until: Date | null): Promise<void>;
  /** Ends the pauses whose time has come (their recipients are claimed again). Returns their accounts. */
  liftEndedPauses(): Promise<string[]>;
  /** WhatsApp answered a send with 429 rate-overlimit: counted against the account's health. */
  noteRateLimited(accountId: string): Promise<void>;
  /**
   * Fails (and refunds) recipients of an account left `sending` by another node: this node now
   * holds the account, so their delivery is unknown. Returns what failed, batch by batch.
   */
  failForeignClaims(accountId: string): Promise<FailedGroup[]>;
  /** Fails (and refunds) sends whose lease ran out: their node died mid-send. */
  failExpiredLeases(): Promise<FailedGroup[]>;
  /** Starts and stops the waiting clocks of jobs whose account cannot send. */
  updateWaitingClocks(): Promise<void>;
  /**
   * Jobs spread over several accounts: the queued recipients of an account that has been down
   * (disconnected, logged out, banned) for `afterMs`, or whose new chats WhatsApp restricts for
   * longer than that, move to the job's healthy accounts, in turn. Returns the accounts that got
   * recipients (to wake them).
   */
  moveFromDownAccounts(afterMs: number): Promise<string[]>;
  /**
   * Which of the sweep's operations have anything to do now, asked in one statement: a node runs
   * only those, so an idle node's sweep is one statement whatever the number of its accounts.
   */
  sweepsDue(waitMs: number): Promise<SweepsDue>;
  /** Fails (and refunds) due recipients of jobs that waited longer than `waitMs` for their account. */
  failLongWaiting(waitMs: number): Promise<FailedGroup[]>;
  /** Fails (and refunds) queued recipients their owner may no longer send (see forbiddenWaiting). */
  failForbidden(): Promise<FailedGroup[]>;
  /** The message to send for a job, rebuilt from its row (null when it cannot be). */
  loadMessage(jobId: string): Promise<DispatchMessage | null>;
  /** A Status post: every other due recipient of the job, claimed (status-transitions.ts). */
  claimStatusBatch(accountId: string, jobId: string): Promise<ClaimedRecipient[]>;
  /** A Status post went: all its recipients are sent under its one message id. */
  recordStatusSent(sent: Array<{ id: number } & SentMessage>): Promise<void>;
  /** Recipients of a Status post fail (and are refunded) with `error`. */
  failStatusRecipients(recipientIds: number[], error: string): Promise<void>;
  /**
   * Sent recipients with no delivery receipt `afterMs` after their send become undelivered (with
   * the known cause), counted on their jobs; a batch at a time. Returns how many.
   */
  markUndelivered(afterMs: number): Promise<number>;
  /** Keeps why the account's sent messages may never arrive, as its transport learned it (delivery.ts). */
  noteUndeliveredCause(accountId: string, cause: UndeliveredCause): Promise<number>;
  /**
   * Sends this node timed out on (failed 'delivery unknown', refunded) were answered after all:
   * the recipients become sent with the message id and their refunds are reversed, in one
   * statement. Returns how many could (not those retried or deleted meanwhile).
   */
  recordSentAfterAll(sent: Array<{ id: number } & SentMessage>): Promise<number>;
}

/** The sweep's operations that may find work (a condition seen true here can be gone when it runs). */
export type SweepsDue = {
  expiredLeases: boolean;
  endedPauses: boolean;
  spreadJobs: boolean;
  waitingClocks: boolean;
  longWaiting: boolean;
  forbidden: boolean;
};
export type { ClaimedRecipient, FailedGroup, SentMessage };
