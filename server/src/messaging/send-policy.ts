import { DEFAULT_TIMEZONE, type SessionPolicy, warmUpLimit } from '@wa/contract';
import type { PolicyRow } from './policy-repository.ts';
import { insideWindow, localDayNumber, localDayStart, nextLocalTime } from './policy-time.ts';

/** The server's settings a policy falls back on (SEND_DELAY_MIN_MS, SEND_DELAY_MAX_MS, WARM_UP_DEFAULT). */
export type PolicyDefaults = { sendDelayMinMs: number; sendDelayMaxMs: number; warmUpDefault: boolean };

/** The account's policy as it applies: its stored choices over the defaults. */
export function resolvePolicy(row: PolicyRow | undefined, defaults: PolicyDefaults): SessionPolicy {
  return {
    dailyLimit: row?.dailyLimit ?? null,
    warmUp: row?.warmUp ?? defaults.warmUpDefault,
    quietHours: row?.quietStart && row.quietEnd ? { start: row.quietStart, end: row.quietEnd } : null,
    timezone: row?.timezone ?? DEFAULT_TIMEZONE,
    delayMinMs: row?.delayMinMs ?? defaults.sendDelayMinMs,
    delayMaxMs: row?.delayMaxMs ?? defaults.sendDelayMaxMs,
    typing: row?.typing ?? true,
  };
}

/** The warm-up's cap on one-to-one messages today, when it applies. */
export function warmUpCapToday(policy: SessionPolicy, linkedAt: Date | null, now: Date): number | null {
  if (!policy.warmUp || !linkedAt) return null;
  return warmUpLimit(localDayNumber(linkedAt, now, policy.timezone));
}

export type SentToday = { all: number; oneToOne: number };

/**
 * What the account may send now: everything, groups only (the warm-up's one-to-one cap is
 * reached; groups are not capped by it), or nothing until a time, with the reason shown on its jobs.
 */
export type SendDecision =
  | { kind: 'open'; groupsOnly: false }
  | { kind: 'open'; groupsOnly: true; reason: string; until: Date }
  | { kind: 'held'; reason: string; until: Date };

export function decide(
  policy: SessionPolicy,
  linkedAt: Date | null,
  sent: SentToday,
  now: Date,
): SendDecision {
  const tz = policy.timezone;
  const q = policy.quietHours;
  if (q && insideWindow(now, tz, q.start, q.end)) {
    return {
      kind: 'held',
      reason: `Waiting: quiet hours until ${q.end}`,
      until: nextLocalTime(now, tz, q.end),
    };
  }
  const midnight = nextLocalTime(now, tz, '00:00');
  if (policy.dailyLimit !== null && sent.all >= policy.dailyLimit) {
    return { kind: 'held', reason: 'Waiting: daily limit reached, resumes at 00:00', until: midnight };
  }
  const cap = warmUpCapToday(policy, linkedAt, now);
  if (cap !== null && sent.oneToOne >= cap) {
    return {
      kind: 'open',
      groupsOnly: true,
      reason: `Waiting: warm-up limit of ${cap} messages a day reached, resumes at 00:00`,
      until: midnight,
    };
  }
  return { kind: 'open', groupsOnly: false };
}

/** How long "typing…" shows before a text: grows with its length, 1 to 5 s, never longer than the pause. */
export function typingMs(textLength: number, pauseMs: number): number {
  if (pauseMs <= 0) return 0;
  return Math.min(pauseMs, Math.max(1000, Math.min(5000, 1000 + textLength * 40)));
}

/** What the account's gate needs from the store. */
export interface PolicySource {
  policyOf(sessionId: string): Promise<{ row: PolicyRow | undefined; linkedAt: Date | null }>;
  countSentSince(sessionId: string, since: Date): Promise<SentToday>;
  setHold(sessionId: string, reason: string | null, until: Date | null): Promise<void>;
}

/** How long a loaded policy and count are trusted before they are read again. */
const POLICY_TTL_MS = 15_000;

/**
 * One account's policy on the node that sends for it: loaded with today's count from the
 * database (so a node taking the account over starts from what others sent), then counted
 * here as messages go (one node sends for an account at a time), and read again every 15 s,
 * when woken, and when the local day turns.
 */
export class SendGate {
  policy: SessionPolicy;
  private linkedAt: Date | null = null;
  private sent: SentToday = { all: 0, oneToOne: 0 };
  private loadedAt = 0;
  private dayEndsAt = 0;
  private heldReason: string | null = null;
  private loaded = false;

  constructor(
    readonly sessionId: string,
    private readonly source: PolicySource,
    private readonly defaults: PolicyDefaults,
  ) {
    this.policy = resolvePolicy(undefined, defaults);
  }

  /** Read again at the next check (the policy may have changed). */
  invalidate(): void {
    this.loadedAt = 0;
  }

  async refreshIfStale(now = Date.now()): Promise<void> {
    if (this.loaded && now - this.loadedAt < POLICY_TTL_MS && now < this.dayEndsAt) return;
    const { row, linkedAt } = await this.source.policyOf(this.sessionId);
    this.policy = resolvePolicy(row, this.defaults);
    this.linkedAt = linkedAt;
    this.heldReason = row?.heldReason ?? null;
    const at = new Date(now);
    this.sent = await this.source.countSentSince(this.sessionId, localDayStart(at, this.policy.timezone));
    this.dayEndsAt = nextLocalTime(at, this.policy.timezone, '00:00').getTime();
    this.loadedAt = now;
    this.loaded = true;
  }

  decide(now = new Date()): SendDecision {
    return decide(this.policy, this.linkedAt, this.sent, now);
  }

  /** A message went out: counted against today's limits until the next read. */
  noteSent(chatId: string): void {
    this.sent.all += 1;
    if (!chatId.endsWith('@g.us')) this.sent.oneToOne += 1;
  }

  /** The pause before the next message, drawn from the account's range. */
  delay(): number {
    const { delayMinMs: lo, delayMaxMs: hi } = this.policy;
    return lo + Math.floor(Math.random() * (hi - lo + 1));
  }

  /** Shows on the account's jobs why its recipients wait (null: they do not); written only on change. */
  async hold(reason: string | null, until: Date | null): Promise<void> {
    if (reason === this.heldReason) return;
    await this.source.setHold(this.sessionId, reason, until);
    this.heldReason = reason;
  }
}
