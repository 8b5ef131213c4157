import type { NewChatMessageCapInfo, ReachoutTimelockState } from 'baileys';
import { RESTRICTION_STEPS_RESET_MS, type RestrictionSteps } from '../restriction-steps.ts';
import type { QuotaUpdate } from '../types.ts';
import { RESTRICTED_463 } from './send.ts';

/**
 * A restriction of new one-to-one chats; `fromTimelock` when WhatsApp reported it active (not only
 * our own sight of a 463).
 */
type Restriction = { reason: string; until: Date | null; fromTimelock?: boolean };

const RESTRICTED_TIMELOCK = 'Paused: WhatsApp restricted this account from starting new chats';
const CAPPED = "Paused: WhatsApp's new-chat limit was reached for this cycle";

/**
 * What WhatsApp restricts of one account: new one-to-one chats (the CAPPED new-chat quota, error
 * 463 and its reach-out timelock) and, after a 429 on a send, every send for a while. Each change
 * of the new-chat restriction is reported once through `report`.
 */
export class RestrictionTracker {
  /** WhatsApp's CAPPED new-chat quota, until the cycle's end when it said. */
  private capped: Restriction | null = null;
  /** Error 463 and the reach-out timelock WhatsApp reports with it. */
  private timelock: Restriction | null = null;
  /** The restriction last reported (null: none). */
  private reported: Restriction | null = null;
  /** Until when WhatsApp asked this account to slow down (429 rate-overlimit on a send). */
  private rateLimitedUntil = 0;
  /**
   * The 463s with no end given in a row (a day without one starts again) and the latest's time,
   * as this process saw them: the count when no store keeps it (or the store fails).
   */
  private retries = { count: 0, lastAt: 0 };
  /** One 463 stepped at a time (its pause is decided from the one before). */
  private stepping: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly report: (update: QuotaUpdate) => void,
    private readonly rateLimitPauseMs: number,
    /** A 463 with no end given: new chats are tried again after `first`, doubled per 463 up to `max`. */
    private readonly retryNewChats: { first: number; max: number } = {
      first: 15 * 60_000,
      max: 8 * 3_600_000,
    },
    /** Where the count is kept for every node (restriction-steps.ts); without: in memory only. */
    private readonly steps?: RestrictionSteps,
  ) {}

  /** A 429 on a send: the account sends nothing for `rateLimitPauseMs`. */
  rateLimited(): void {
    this.rateLimitedUntil = Date.now() + this.rateLimitPauseMs;
  }

  get isRateLimited(): boolean {
    return Date.now() < this.rateLimitedUntil;
  }

  /**
   * Error 463 on a send: new chats restricted until WhatsApp says otherwise. rc14 itself does not
   * ask until when (its 463 branch is the tctoken one): the caller asks for the timelock. Until it
   * answers, or when it reports none (a 463 for a missing tctoken), new chats are tried again
   * after a pause that doubles with each 463 in a row (15 min, 30, 60 … up to 8 h): waiting for
   * someone to press Resume held every one-to-one send of the account. Returns the pause's end.
   */
  restricted463(): Promise<Date> {
    const turn = this.stepping.then(() => this.step463());
    this.stepping = turn.catch(() => {});
    return turn;
  }

  private async step463(): Promise<Date> {
    // A 463 of a send made before the pause (or WhatsApp's own timelock) steps nothing: one step a pause.
    const held = this.timelock?.until;
    if (held && held.getTime() > Date.now()) return held;
    const seen = Date.now() - this.retries.lastAt > RESTRICTION_STEPS_RESET_MS ? 0 : this.retries.count;
    // The stored count, where one is kept: another node's or an earlier process's 463s count too.
    const before = this.timelock;
    const count = this.steps ? await this.steps.step().catch(() => seen) : seen;
    const now = Date.now();
    // WhatsApp's own timelock, asked at the 463, answered while the count was written: it says until when.
    const told = this.timelock;
    if (told !== before && told?.until && told.until.getTime() > now) return told.until;
    this.retries = { count: count + 1, lastAt: now };
    const { first, max } = this.retryNewChats;
    const until = new Date(now + Math.min(max, first * 2 ** count));
    this.setTimelock({ reason: RESTRICTED_463, until });
    return until;
  }

  /** connection.update reachoutTimeLock: our query's answer, or WhatsApp's notification (Socket/messages-recv.js). */
  noteTimelock(state: ReachoutTimelockState): void {
    if (!state.isActive) {
      // Lifts a timelock WhatsApp had reported; a 463 it reports no timelock for keeps its own
      // growing pause (its account may still be unable to start chats: a missing tctoken).
      if (this.timelock?.fromTimelock) this.setTimelock(null);
      return;
    }
    this.setTimelock({
      reason: this.timelock?.reason ?? RESTRICTED_TIMELOCK,
      until: state.timeEnforcementEnds ? new Date(state.timeEnforcementEnds) : (this.timelock?.until ?? null),
      fromTimelock: true,
    });
  }

  /** message-capping.update, or the answer of fetchNewChatMessageCap (Socket/mex.js). */
  noteQuota(info: NewChatMessageCapInfo): void {
    if (info.capping_status !== 'CAPPED') {
      this.capped = null;
    } else {
      const end = Number(info.cycle_end_timestamp);
      this.capped = { reason: CAPPED, until: end > 0 ? new Date(end * 1000) : null };
    }
    this.reportChange();
  }

  private setTimelock(timelock: Restriction | null): void {
    this.timelock = timelock;
    this.reportChange();
  }

  /** The restriction of new one-to-one chats now: the later-ending of the timelock and the quota. */
  private current(): Restriction | null {
    const now = Date.now();
    const live = [this.timelock, this.capped].filter(
      (r): r is Restriction => !!r && (r.until === null || r.until.getTime() > now),
    );
    if (live.length === 0) return null;
    return live.reduce((a, b) =>
      a.until === null || (b.until !== null && a.until.getTime() >= b.until.getTime()) ? a : b,
    );
  }

  /** Reports a change of the restriction; a lift only when one had been reported. */
  private reportChange(): void {
    const now = this.current();
    const before = this.reported;
    if (now?.reason === before?.reason && now?.until?.getTime() === before?.until?.getTime()) return;
    this.reported = now;
    if (now) this.report({ capped: true, reason: now.reason, until: now.until });
    else this.report({ capped: false, reason: null, until: null });
  }
}
