import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../metrics/metrics.ts';
import { type OutgoingMessage, SendError, type Transport } from '../transport/types.ts';
import type { ClaimedRecipient, DispatchStore, Receipt } from './dispatch-store.ts';
import { DISPATCH_MESSAGES } from './messages.ts';

export type SessionLoopDeps = {
  store: DispatchStore;
  /** The live transport of a session this node drives, if any. */
  transportFor(sessionId: string): Transport | undefined;
  log: FastifyBaseLogger;
  /** This process's counters: outcomes recorded and the transport's send time. */
  metrics: Pick<Metrics, 'messages' | 'sendDuration'>;
  /** With a pause between messages, the next recipient is claimed after it (no lease held while waiting). */
  paced: boolean;
  /** The pause before the next message, in ms. */
  delay(): number;
  /** How long to wait after a failed claim or a refused send before trying again. */
  pollMs: number;
  /** Where receipts go to be batched. */
  receipt(sessionId: string, receipt: Receipt): void;
  /** True once the whole dispatcher stops. */
  stopped(): boolean;
  /** Called once the loop has ended (after its last outcome was recorded). */
  ended(loop: SessionLoop): void;
};

type SendOutcome = { next: ClaimedRecipient | null } | 'failed' | 'paused' | 'session-down';

/**
 * The sending loop of one session on this node: one message at a time, paced, each outcome
 * recorded through the store. At most once: a recipient is `sending` with a lease (the claim)
 * before the transport is called.
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
  readonly done: Promise<void>;

  constructor(
    readonly sessionId: string,
    private readonly deps: SessionLoopDeps,
    previous?: Promise<void>,
  ) {
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
    if (this.alarm) clearTimeout(this.alarm);
    this.alarm = null;
    this.woken = true;
    this.wakeUp?.();
  }

  /** Wakes the loop in `ms` (its session's next recipient falls due then), unless woken sooner. */
  wakeIn(ms: number): void {
    if (ms <= 0) {
      this.wake();
      return;
    }
    if (this.alarm) clearTimeout(this.alarm);
    this.alarm = setTimeout(() => this.wake(), ms);
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

  /** Receipts come from the transport; WhatsApp's quota event is the session runner's to act on. */
  private attach(transport: Transport): void {
    if (this.transport === transport) return;
    this.detach();
    this.transport = transport;
    transport.on('receipt', this.onReceipt);
  }

  private detach(): void {
    this.transport?.off('receipt', this.onReceipt);
    this.transport = undefined;
  }

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
    // Unpaced, recording a sent message also claims the next one (one statement per message).
    let next: ClaimedRecipient | null = null;
    try {
      while (this.active) {
        const transport = deps.transportFor(sessionId);
        if (!transport) return;
        this.attach(transport);
        if (deps.paced) await this.pace(nextSendAt);
        if (!this.active) return;

        let r = next;
        next = null;
        if (!r) {
          try {
            [r = null] = await store.claim(sessionId, 1);
          } catch (err) {
            log.error({ err, sessionId }, 'claiming recipients failed');
            await this.pause(deps.pollMs);
            continue;
          }
        }
        if (!r) {
          // Idle costs no statement of this session's own: a signal, a connection or the
          // dispatcher's one due-time query for all idle sessions of the node wakes it.
          this.idle = true;
          await this.pause(Infinity);
          this.idle = false;
          continue;
        }
        const outcome = await this.sendOne(transport, r, !deps.paced);
        nextSendAt = Date.now() + deps.delay();
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
  private async sendOne(transport: Transport, r: ClaimedRecipient, claimNext: boolean): Promise<SendOutcome> {
    const { sessionId, deps } = this;
    const { store, log } = deps;
    const message = await this.messageFor(r.jobId);
    if (!message) {
      await this.fail(r, DISPATCH_MESSAGES.contentMissing);
      return 'failed';
    }
    let messageId: string;
    const endTimer = deps.metrics.sendDuration.startTimer();
    try {
      ({ messageId } = await transport.send(r.chatId, message));
      endTimer();
    } catch (err) {
      endTimer();
      if (err instanceof SendError && err.retriesLater) {
        // The transport refused before sending anything (not connected, or WhatsApp's 429):
        // the recipient waits for the session.
        await store.release([r.id]);
        return 'session-down';
      }
      if (err instanceof SendError && err.pausesSession) {
        await this.fail(r, err.message);
        await store.pauseSession(sessionId, err.message);
        log.warn({ sessionId, code: err.code, reason: err.message }, 'session queue paused');
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
    try {
      const following = await store.recordSent(
        r.id,
        messageId,
        claimNext && this.active ? sessionId : undefined,
      );
      deps.metrics.messages.inc({ outcome: 'sent' });
      return { next: following };
    } catch (err) {
      // Left `sending`: its lease runs out and it fails as 'delivery unknown', never re-sent.
      log.error({ err, sessionId, recipient: r.id }, 'recording a sent message failed');
      return { next: null };
    }
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
