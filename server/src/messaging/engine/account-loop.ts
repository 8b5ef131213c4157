import type { Transport } from '../../transport/types.ts';
import { type PolicyDefaults, type SendDecision, SendGate, typingMs } from '../limits/allowance.ts';
import { DISPATCH_MESSAGES } from '../messages.ts';
import type { DispatchMessage } from './dispatch-message.ts';
import {
  attemptSend,
  type OutcomeDeps,
  recordFailure,
  recordSent,
  type SendOutcome,
} from './send-outcome.ts';
import { postStatusBatch } from './status-batch.ts';
import type { ClaimedRecipient } from './store-port.ts';
import { HELD_AT_LAST_MOMENT } from './timeout.ts';

export type AccountLoopDeps = OutcomeDeps & {
  /** The live transport of an account this node drives, if any. */
  transportFor(accountId: string): Transport | undefined;
  /** What an account's policy falls back on (the server's pause range and warm-up default). */
  policyDefaults: PolicyDefaults;
  /** How long to wait after a failed claim or a refused send before trying again. */
  pollMs: number;
  /** True once the whole dispatcher stops. */
  stopped(): boolean;
  /** Called once the loop has ended (after its last outcome was recorded). */
  ended(loop: AccountLoop): void;
};

/** The longest "typing…" before a text (docs/decisions.md, Sending pace: 1-5 s by length). */
const TYPING_MAX_MS = 5000;

/**
 * The sending loop of one account on this node: one message at a time, paced, each outcome
 * recorded through the store. At most once: a recipient is `sending` with a lease (the claim)
 * before the transport is called. The account's policy (SendGate) is asked before every claim
 * and again just before the send: held by quiet hours or a daily limit, the loop parks until
 * the time it resumes (no polling); its recipients stay queued and its jobs show why.
 */
export class AccountLoop {
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private stopping = false;
  private alarm: NodeJS.Timeout | null = null;
  /** True while the queue looked empty: the dispatcher's per-node due-time query decides when to wake it. */
  idle = false;
  /** A few rebuilt messages (a media job holds up to 16 MB). */
  private readonly messages = new Map<string, DispatchMessage | null>();
  private readonly gate: SendGate;
  readonly done: Promise<void>;

  constructor(
    readonly accountId: string,
    private readonly deps: AccountLoopDeps,
    previous?: Promise<void>,
  ) {
    this.gate = new SendGate(accountId, deps.store, deps.policyDefaults);
    this.done = (async () => {
      // One loop per account on this node: a new one starts after the old one has recorded its last send.
      await previous;
      try {
        await this.run();
      } catch (err) {
        deps.log.error({ err, accountId }, 'dispatcher loop failed');
      } finally {
        // From here a `connected` event starts a new loop instead of waking this one.
        this.stopping = true;
        if (this.alarm) clearTimeout(this.alarm);
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
   * Wakes the loop in `ms` (its account's next recipient falls due then), unless woken sooner.
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

  private async run(): Promise<void> {
    const { accountId, deps } = this;
    const { store, log } = deps;
    // This node holds the account's lease now: a send another node left `sending` lost its
    // sender (crash or cut-off). Its delivery is unknown, so it fails and is refunded, never re-sent.
    for (;;) {
      const groups = await store.failForeignClaims(accountId);
      if (groups.length === 0) break;
      log.warn({ accountId, jobs: groups }, 'sends interrupted by a lost node marked failed');
    }
    let nextSendAt = 0;
    // The pause drawn before the next message (typing happens inside it).
    let pauseMs = 0;
    // Unpaced, recording a sent message also claims the next one (one statement per message).
    let next: ClaimedRecipient | null = null;
    try {
      while (this.active) {
        const transport = deps.transportFor(accountId);
        if (!transport) return;
        // A Cloud API number paces itself (its throughput) and has no warm-up or typing: the
        // anti-ban pause is for linked phones (transport capabilities, not a branch on the kind).
        const throughput = transport.capabilities?.pace === 'throughput';
        const paced = !throughput && this.gate.policy.delayMaxMs > 0;
        // The claim comes before the last 5 s of the pause: the typing indicator shows inside it.
        if (paced) await this.pace(nextSendAt - Math.min(TYPING_MAX_MS, pauseMs));
        if (!this.active) return;

        let r = next;
        next = null;
        let decision: SendDecision;
        try {
          await this.gate.refreshIfStale();
          decision = this.gate.decide();
          if (throughput && decision.kind === 'open' && decision.scope !== 'all')
            decision = { kind: 'open', scope: 'all' };
          if (decision.kind === 'held') {
            if (r) await store.release([r.id]);
            await this.gate.hold(decision.reason, decision.until);
            // Parked until the hold ends (or a wake: new work, a changed policy).
            await this.pause(Math.max(1000, decision.until.getTime() - Date.now()));
            this.gate.invalidate();
            continue;
          }
          if (!r) [r = null] = await store.claim(accountId, 1, decision.scope);
        } catch (err) {
          log.error({ err, accountId }, 'claiming recipients failed');
          await this.pause(deps.pollMs);
          continue;
        }
        if (!r) {
          if (decision.scope !== 'all') {
            // One-to-one chats (or new numbers) wait for the next day; a new job wakes the loop.
            await this.gate.hold(decision.reason, decision.until);
            await this.pause(Math.max(1000, decision.until.getTime() - Date.now()));
            this.gate.invalidate();
            continue;
          }
          await this.gate.hold(null, null).catch(() => {});
          // Idle costs no statement of this account's own: a signal, a connection or the
          // dispatcher's one due-time query for all idle accounts of the node wakes it.
          this.idle = true;
          await this.pause(Infinity);
          this.idle = false;
          continue;
        }
        const narrowed = decision.scope === 'all' ? null : decision;
        await this.gate.hold(narrowed?.reason ?? null, narrowed?.until ?? null).catch(() => {});
        const lanes = transport.capabilities?.concurrentSends ?? 1;
        if (lanes > 1) {
          await this.runLanes(transport, lanes, r);
          continue;
        }
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

  /**
   * An account that may have several sends in flight (a Cloud API number: its transport paces
   * them to its throughput): `lanes` sends at once, each lane claiming its next recipient with the
   * record of its last, until the queue is empty, the policy holds it, or the account is down.
   * Each claim is still one recipient with its lease: at most once holds per recipient.
   */
  private async runLanes(transport: Transport, lanes: number, first: ClaimedRecipient): Promise<void> {
    const { store, log } = this.deps;
    const lane = async (start: ClaimedRecipient | null) => {
      let next = start;
      while (this.active) {
        let r = next;
        next = null;
        if (!r) {
          if (this.gate.decide().kind === 'held') return;
          try {
            [r = null] = await store.claim(this.accountId, 1, 'all');
          } catch (err) {
            log.error({ err, accountId: this.accountId }, 'claiming recipients failed');
            return;
          }
          if (!r) return;
        }
        const outcome = await this.sendOne(transport, r, true, 0, 0);
        if (typeof outcome === 'object') next = outcome.next;
        else if (outcome === 'session-down' || outcome === 'held') return;
      }
      if (next) await store.release([next.id]).catch(() => {});
    };
    await Promise.all(Array.from({ length: lanes }, (_, i) => lane(i === 0 ? first : null)));
  }

  private async messageFor(jobId: string): Promise<DispatchMessage | null> {
    if (this.messages.has(jobId)) return this.messages.get(jobId)!;
    const message = await this.deps.store.loadMessage(jobId);
    if (this.messages.size >= 4) this.messages.clear();
    this.messages.set(jobId, message);
    return message;
  }

  /**
   * Sends one claimed recipient and records the outcome (send-outcome.ts). With `claimNext`, a
   * successful record also claims the account's next due recipient and returns it.
   */
  private async sendOne(
    transport: Transport,
    r: ClaimedRecipient,
    claimNext: boolean,
    pauseMs: number,
    sendAt: number,
  ): Promise<SendOutcome> {
    const { accountId, deps } = this;
    const message = await this.messageFor(r.jobId);
    if (!message) {
      await recordFailure(deps, accountId, r, DISPATCH_MESSAGES.contentMissing);
      return 'failed';
    }
    const { presence } = transport;
    const ms =
      message.kind === 'text' && this.gate.policy.typing && presence
        ? typingMs(message.text.length, pauseMs)
        : 0;
    let typing: { beforeRelay: (chatId: string) => Promise<void>; ms: number } | undefined;
    if (ms > 0) {
      // "typing…" for the end of the pause, shown only once the transport found the contact
      // reachable (on WhatsApp, not opted out): from its beforeRelay, which then waits until the
      // send and asks the policy at the last moment. A failed presence update does not stop the send.
      await this.pace(sendAt - ms);
      const beforeRelay = async (chatId: string) => {
        await presence!
          .call(transport, chatId, 'composing')
          .catch((err) => deps.log.debug({ err, accountId }, 'presence'));
        if (!(await this.atLastMoment(sendAt))) throw HELD_AT_LAST_MOMENT;
      };
      typing = { beforeRelay, ms };
    } else if (!(await this.atLastMoment(sendAt))) {
      await deps.store.release([r.id]);
      return 'held';
    }
    if (message.kind === 'status') {
      // One post for a batch of the job's audience, paced as one send (status-batch.ts).
      const posted = await postStatusBatch(deps, transport, accountId, r, message.post);
      if (posted === 'sent') this.gate.noteSent(r.chatId);
      return posted === 'sent' ? { next: null } : posted;
    }
    const attempt = await attemptSend(deps, accountId, transport, r, message, typing);
    if (!(typeof attempt === 'object' && 'sent' in attempt)) return attempt;
    this.gate.noteSent(r.chatId);
    // The next is claimed with this record only when the policy lets the account go on now.
    const after = this.gate.decide();
    const claimFor = claimNext && this.active && after.kind === 'open' ? accountId : undefined;
    // A Cloud API number has no warm-up (its pace is its throughput): its next claim is any recipient.
    const scope =
      after.kind === 'open' && transport.capabilities?.pace !== 'throughput' ? after.scope : 'all';
    return recordSent(deps, accountId, r, attempt.sent, claimFor, scope);
  }

  /** Waits until `sendAt`; then whether the send may still go (asked again: quiet hours may have begun while typing). */
  private async atLastMoment(sendAt: number): Promise<boolean> {
    await this.pace(sendAt);
    return this.gate.decide().kind !== 'held' && this.active;
  }
}
