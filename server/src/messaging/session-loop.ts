import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../metrics/metrics.ts';
import { type OutgoingMessage, SendError, type SendFailure, type Transport } from '../transport/types.ts';
import { withContent } from './compose.ts';
import type { ClaimedRecipient, DispatchStore, Receipt } from './dispatch-store.ts';
import { DISPATCH_MESSAGES } from './messages.ts';
import { type PolicyDefaults, type SendDecision, SendGate, typingMs } from './send-policy.ts';

export type SessionLoopDeps = {
  store: DispatchStore;
  /** The live transport of a session this node drives, if any. */
  transportFor(sessionId: string): Transport | undefined;
  log: FastifyBaseLogger;
  /** This process's counters: outcomes recorded and the transport's send time. */
  metrics: Pick<Metrics, 'messages' | 'sendDuration'>;
  /** What an account's policy falls back on (the server's pause range and warm-up default). */
  policyDefaults: PolicyDefaults;
  /** How long to wait after a failed claim or a refused send before trying again. */
  pollMs: number;
  /** SEND_TIMEOUT_MS: the longest a send may take; then it is an outcome (delivery unknown), not a hang. */
  sendTimeoutMs: number;
  /** Where receipts go to be batched. */
  receipt(sessionId: string, receipt: Receipt): void;
  /** Where WhatsApp's later refusals of sent messages go (to fail and refund their recipients). */
  sendFailed(sessionId: string, failure: SendFailure): void;
  /** True once the whole dispatcher stops. */
  stopped(): boolean;
  /** Called once the loop has ended (after its last outcome was recorded). */
  ended(loop: SessionLoop): void;
};

/** The longest "typing…" before a text (DECISIONS.md: 1-5 s by length). */
const TYPING_MAX_MS = 5000;

const SEND_TIMED_OUT = Symbol('send timed out');

/** The send, or SEND_TIMED_OUT thrown after `ms` (the send goes on; its late result is dropped). */
function withTimeout<T>(send: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(SEND_TIMED_OUT), ms);
  });
  send.catch(() => {});
  return Promise.race([send, expiry]).finally(() => clearTimeout(timer));
}

type SendOutcome = { next: ClaimedRecipient | null } | 'failed' | 'paused' | 'session-down' | 'held';

/**
 * The sending loop of one session on this node: one message at a time, paced, each outcome
 * recorded through the store. At most once: a recipient is `sending` with a lease (the claim)
 * before the transport is called. The account's policy (SendGate) is asked before every claim
 * and again just before the send: held by quiet hours or a daily limit, the loop parks until
 * the time it resumes (no polling); its recipients stay queued and its jobs show why.
 */
export class SessionLoop {
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private stopping = false;
  private alarm: NodeJS.Timeout | null = null;
  /** True while the queue looked empty: the dispatcher's per-node due-time query decides when to wake it. */
  idle = false;
  private transport: Transport | undefined;
  /** A few rebuilt messages (a media job holds up to 16 MB). */
  private readonly messages = new Map<string, OutgoingMessage | null>();
  private readonly gate: SendGate;
  readonly done: Promise<void>;

  constructor(
    readonly sessionId: string,
    private readonly deps: SessionLoopDeps,
    previous?: Promise<void>,
  ) {
    this.gate = new SendGate(sessionId, deps.store, deps.policyDefaults);
    this.done = (async () => {
      // One loop per session on this node: a new one starts after the old one has recorded its last send.
      await previous;
      try {
        await this.run();
      } catch (err) {
        deps.log.error({ err, sessionId }, 'dispatcher loop failed');
      } finally {
        // From here a `connected` event starts a new loop instead of waking this one.
        this.stopping = true;
        if (this.alarm) clearTimeout(this.alarm);
        this.detach();
        deps.ended(this);
      }
    })();
  }

  get active(): boolean {
    return !this.stopping && !this.deps.stopped();
  }

  wake(): void {
    // New work or a changed policy: the gate reads the policy and today's count again.
    this.gate.invalidate();
    this.rouse();
  }

  private rouse(): void {
    if (this.alarm) clearTimeout(this.alarm);
    this.alarm = null;
    this.woken = true;
    this.wakeUp?.();
  }

  /**
   * Wakes the loop in `ms` (its session's next recipient falls due then), unless woken sooner.
   * Only time has passed: the policy read stays good for its TTL (each timed wake read the
   * policy and today's count again: two queries per account before its first claim).
   */
  wakeIn(ms: number): void {
    if (ms <= 0) {
      this.rouse();
      return;
    }
    if (this.alarm) clearTimeout(this.alarm);
    this.alarm = setTimeout(() => this.rouse(), ms);
  }

  stop(): void {
    this.stopping = true;
    this.wake();
  }

  /** Waits `ms` (Infinity: until woken), or less when woken or stopped. */
  private async pause(ms: number): Promise<void> {
    if (ms <= 0 || !this.active) return;
    if (this.woken) {
      this.woken = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = Number.isFinite(ms) ? setTimeout(resolve, ms) : undefined;
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wakeUp = null;
    this.woken = false;
  }

  /** Waits the full pace delay: only a stop cuts it short, a new job does not. */
  private async pace(until: number): Promise<void> {
    while (this.active && Date.now() < until) {
      await this.pause(until - Date.now());
    }
  }

  /** Receipts and later refusals come from the transport; WhatsApp's quota event is the session runner's to act on. */
  private attach(transport: Transport): void {
    if (this.transport === transport) return;
    this.detach();
    this.transport = transport;
    transport.on('receipt', this.onReceipt);
    transport.on('send-failed', this.onSendFailed);
  }

  private detach(): void {
    this.transport?.off('receipt', this.onReceipt);
    this.transport?.off('send-failed', this.onSendFailed);
    this.transport = undefined;
  }

  private readonly onSendFailed = (f: SendFailure) => this.deps.sendFailed(this.sessionId, f);

  private readonly onReceipt = (r: Receipt) => {
    this.deps.receipt(this.sessionId, { messageId: r.messageId, status: r.status, at: r.at });
  };

  private async run(): Promise<void> {
    const { sessionId, deps } = this;
    const { store, log } = deps;
    // This node holds the session's lease now: a send another node left `sending` lost its
    // sender (crash or cut-off). Its delivery is unknown, so it fails and is refunded, never re-sent.
    for (;;) {
      const groups = await store.failForeignClaims(sessionId);
      if (groups.length === 0) break;
      log.warn({ sessionId, jobs: groups }, 'sends interrupted by a lost node marked failed');
    }
    let nextSendAt = 0;
    // The pause drawn before the next message (typing happens inside it).
    let pauseMs = 0;
    // Unpaced, recording a sent message also claims the next one (one statement per message).
    let next: ClaimedRecipient | null = null;
    try {
      while (this.active) {
        const transport = deps.transportFor(sessionId);
        if (!transport) return;
        this.attach(transport);
        const paced = this.gate.policy.delayMaxMs > 0;
        // The claim comes before the last 5 s of the pause: the typing indicator shows inside it.
        if (paced) await this.pace(nextSendAt - Math.min(TYPING_MAX_MS, pauseMs));
        if (!this.active) return;

        let r = next;
        next = null;
        let decision: SendDecision;
        try {
          await this.gate.refreshIfStale();
          decision = this.gate.decide();
          if (decision.kind === 'held') {
            if (r) await store.release([r.id]);
            await this.gate.hold(decision.reason, decision.until);
            // Parked until the hold ends (or a wake: new work, a changed policy).
            await this.pause(Math.max(1000, decision.until.getTime() - Date.now()));
            this.gate.invalidate();
            continue;
          }
          if (!r) [r = null] = await store.claim(sessionId, 1, decision.groupsOnly);
        } catch (err) {
          log.error({ err, sessionId }, 'claiming recipients failed');
          await this.pause(deps.pollMs);
          continue;
        }
        if (!r) {
          if (decision.groupsOnly) {
            // One-to-one chats wait for the warm-up's next day; a new group job wakes the loop.
            await this.gate.hold(decision.reason, decision.until);
            await this.pause(Math.max(1000, decision.until.getTime() - Date.now()));
            this.gate.invalidate();
            continue;
          }
          await this.gate.hold(null, null).catch(() => {});
          // Idle costs no statement of this session's own: a signal, a connection or the
          // dispatcher's one due-time query for all idle sessions of the node wakes it.
          this.idle = true;
          await this.pause(Infinity);
          this.idle = false;
          continue;
        }
        await this.gate
          .hold(decision.groupsOnly ? decision.reason : null, decision.groupsOnly ? decision.until : null)
          .catch(() => {});
        const outcome = await this.sendOne(transport, r, !paced, pauseMs, nextSendAt);
        pauseMs = paced ? this.gate.delay() : 0;
        nextSendAt = Date.now() + pauseMs;
        if (typeof outcome === 'object') next = outcome.next;
        else if (outcome === 'session-down') await this.pause(deps.pollMs);
      }
    } finally {
      // Claimed but never handed to the transport: back to the queue, nothing is lost or unknown.
      if (next) await store.release([next.id]).catch(() => {});
    }
  }

  private async messageFor(jobId: string): Promise<OutgoingMessage | null> {
    if (this.messages.has(jobId)) return this.messages.get(jobId)!;
    const message = await this.deps.store.loadMessage(jobId);
    if (this.messages.size >= 4) this.messages.clear();
    this.messages.set(jobId, message);
    return message;
  }

  /**
   * Sends one claimed recipient and records the outcome. With `claimNext`, a successful
   * record also claims the session's next due recipient and returns it.
   */
  private async sendOne(
    transport: Transport,
    r: ClaimedRecipient,
    claimNext: boolean,
    pauseMs: number,
    sendAt: number,
  ): Promise<SendOutcome> {
    const { sessionId, deps } = this;
    const { store, log } = deps;
    const message = await this.messageFor(r.jobId);
    if (!message) {
      await this.fail(r, DISPATCH_MESSAGES.contentMissing);
      return 'failed';
    }
    if (message.kind === 'text' && this.gate.policy.typing) {
      const ms = typingMs(message.text.length, pauseMs);
      if (ms > 0) {
        // "typing…" for the end of the pause; a failed presence update does not stop the send.
        await this.pace(sendAt - ms);
        await transport
          .presence(r.chatId, 'composing')
          .catch((err) => log.debug({ err, sessionId }, 'presence'));
      }
    }
    await this.pace(sendAt);
    // Asked again at the last moment: quiet hours may have begun while typing.
    if (this.gate.decide().kind === 'held' || !this.active) {
      await store.release([r.id]);
      return 'held';
    }
    let messageId: string;
    let sentTo: string | undefined;
    let kept: string | undefined;
    const endTimer = deps.metrics.sendDuration.startTimer();
    try {
      ({
        messageId,
        chatId: sentTo,
        kept,
      } = await withTimeout(transport.send(r.chatId, withContent(message, r.content)), deps.sendTimeoutMs));
      endTimer();
    } catch (err) {
      endTimer();
      if (err === SEND_TIMED_OUT) {
        log.warn({ sessionId, recipient: r.id, timeoutMs: deps.sendTimeoutMs }, 'send timed out');
        await this.fail(r, DISPATCH_MESSAGES.sendTimedOut);
        return 'failed';
      }
      if (err instanceof SendError && err.retriesLater) {
        // The transport refused before sending anything (not connected, or WhatsApp's 429):
        // the recipient waits.
        await store.release([r.id]);
        return 'session-down';
      }
      if (err instanceof SendError && err.pausesSession) {
        // Sent and refused (463): never retried automatically.
        await this.fail(r, err.message);
        await this.pauseDirect(err);
        return 'paused';
      }
      const reason =
        err instanceof SendError
          ? err.code === 'not-on-whatsapp'
            ? DISPATCH_MESSAGES.notOnWhatsApp
            : err.message
          : `Send failed: ${(err as Error).message ?? String(err)}`;
      await this.fail(r, reason);
      return 'failed';
    }
    this.gate.noteSent(r.chatId);
    // The next is claimed with this record only when the policy lets the account go on now.
    const after = this.gate.decide();
    const claimFor = claimNext && this.active && after.kind === 'open' ? sessionId : undefined;
    try {
      const following = await store.recordSent(
        r.id,
        { messageId, sentTo, kept },
        claimFor,
        after.kind === 'open' && after.groupsOnly,
      );
      deps.metrics.messages.inc({ outcome: 'sent' });
      return { next: following };
    } catch (err) {
      // Left `sending`: its lease runs out and it fails as 'delivery unknown', never re-sent.
      log.error({ err, sessionId, recipient: r.id }, 'recording a sent message failed');
      return { next: null };
    }
  }

  /** WhatsApp restricts the account's new one-to-one chats: those wait, group sends go on. */
  private async pauseDirect(err: SendError): Promise<void> {
    await this.deps.store.pauseSession(this.sessionId, err.message, err.until);
    this.deps.log.warn(
      { sessionId: this.sessionId, code: err.code, reason: err.message, until: err.until },
      'one-to-one sends paused',
    );
  }

  private async fail(r: ClaimedRecipient, error: string): Promise<void> {
    try {
      await this.deps.store.fail(r.id, error);
      this.deps.metrics.messages.inc({ outcome: 'failed' });
    } catch (err) {
      this.deps.log.error(
        { err, sessionId: this.sessionId, recipient: r.id },
        'recording a failed send failed',
      );
    }
  }
}
