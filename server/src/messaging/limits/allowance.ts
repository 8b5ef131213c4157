import {
  type AccountPolicy,
  DEFAULT_NEW_CONTACTS_PER_DAY,
  DEFAULT_TIMEZONE,
  isChannelJid,
  isGroupJid,
  warmUpLimit,
} from '@wa/contract';
import { insideWindow, localDayNumber, localDayStart, nextLocalTime } from './clock.ts';
import type { HealthEffect, PolicyRow } from './repository.ts';

/** The server's settings a policy falls back on (SEND_DELAY_MIN_MS, SEND_DELAY_MAX_MS, WARM_UP_DEFAULT). */
export type PolicyDefaults = { sendDelayMinMs: number; sendDelayMaxMs: number; warmUpDefault: boolean };

/** The account's policy as it applies: its stored choices over the defaults. */
export function resolvePolicy(
  row: PolicyRow | undefined,
  defaults: PolicyDefaults,
): AccountPolicy & { newContactsPerDay: number | null } {
  const warmUp = row?.warmUp ?? defaults.warmUpDefault;
  // Stored null: the default (on while warm-up is on); 0: no cap, chosen by the user.
  const stored = row?.newContactsPerDay;
  const newContactsPerDay =
    stored === null || stored === undefined ? (warmUp ? DEFAULT_NEW_CONTACTS_PER_DAY : null) : stored || null;
  return {
    dailyLimit: row?.dailyLimit ?? null,
    warmUp,
    newContactsPerDay,
    quietHours: row?.quietStart && row.quietEnd ? { start: row.quietStart, end: row.quietEnd } : null,
    timezone: row?.timezone ?? DEFAULT_TIMEZONE,
    delayMinMs: row?.delayMinMs ?? defaults.sendDelayMinMs,
    delayMaxMs: row?.delayMaxMs ?? defaults.sendDelayMaxMs,
    typing: row?.typing ?? true,
  };
}

/**
 * The warm-up's cap on one-to-one messages today, when it applies. It advances only while the
 * account is healthy: `heldDays` local days began while it was not (accounts/health).
 */
export function warmUpCapToday(
  policy: AccountPolicy,
  linkedAt: Date | null,
  now: Date,
  heldDays = 0,
): number | null {
  if (!policy.warmUp || !linkedAt) return null;
  return warmUpLimit(localDayNumber(linkedAt, now, policy.timezone) - heldDays);
}

export type SentToday = { all: number; oneToOne: number; newContacts?: number };

/** With no daily limit of its own, an account on watch sends at most this many messages a day. */
export const WATCH_DAILY_LIMIT = 200;
const halve = (n: number) => Math.ceil(n / 2);

/**
 * The caps that apply today: the policy's, and on watch (docs/accounts.md, "Account health and the circuit breaker") the daily
 * limit, the warm-up's cap and the new-contact cap halved (a daily limit of WATCH_DAILY_LIMIT
 * when there is none).
 */
export function capsToday(
  policy: AccountPolicy,
  linkedAt: Date | null,
  now: Date,
  health: HealthEffect | null = null,
): { daily: number | null; warmUp: number | null; newContacts: number | null; watch: boolean } {
  const watch = health?.state === 'watch';
  const warmUp = warmUpCapToday(policy, linkedAt, now, health?.warmUpHeldDays ?? 0);
  const newContacts = policy.newContactsPerDay ?? null;
  if (!watch) return { daily: policy.dailyLimit, warmUp, newContacts, watch };
  return {
    daily: policy.dailyLimit === null ? WATCH_DAILY_LIMIT : halve(policy.dailyLimit),
    warmUp: warmUp === null ? null : halve(warmUp),
    newContacts: newContacts === null ? null : halve(newContacts),
    watch,
  };
}

const ON_WATCH = " (lowered while this account's health is on watch)";

/**
 * Which due recipients a claim may take: all of them; groups only (the warm-up's one-to-one cap is
 * reached; groups are not capped by it); or groups and the numbers the account has messaged
 * before (the new-contact cap is reached: only numbers never messaged wait).
 */
export type ClaimScope = 'all' | 'groups' | 'known';

/**
 * What the account may send now: everything, a narrower scope (with the reason shown on its jobs
 * while what is left out waits), or nothing until a time.
 */
/** The first words of the reasons of holds that only one-to-one chats wait for (scope 'groups' or 'known'). */
const ONE_TO_ONE_HOLDS = ['Waiting: warm-up limit', 'Waiting: new-contact limit'] as const;

/** Whether a hold's reason (as `decide` words it) keeps only one-to-one chats waiting: groups go on. */
export const holdsOneToOneOnly = (reason: string): boolean =>
  ONE_TO_ONE_HOLDS.some((p) => reason.startsWith(p));

export type SendDecision =
  | { kind: 'open'; scope: 'all' }
  | { kind: 'open'; scope: 'groups' | 'known'; reason: string; until: Date }
  | { kind: 'held'; reason: string; until: Date };

export function decide(
  policy: AccountPolicy,
  linkedAt: Date | null,
  sent: SentToday,
  now: Date,
  health: HealthEffect | null = null,
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
  // Only a decision that waits names the next midnight: most sends are open and need no clock.
  const midnight = () => nextLocalTime(now, tz, '00:00');
  const caps = capsToday(policy, linkedAt, now, health);
  const note = caps.watch ? ON_WATCH : '';
  if (caps.daily !== null && sent.all >= caps.daily) {
    const reason = caps.watch
      ? `Waiting: daily limit of ${caps.daily}${note} reached, resumes at 00:00`
      : 'Waiting: daily limit reached, resumes at 00:00';
    return { kind: 'held', reason, until: midnight() };
  }
  if (caps.warmUp !== null && sent.oneToOne >= caps.warmUp) {
    return {
      kind: 'open',
      scope: 'groups',
      reason: `${ONE_TO_ONE_HOLDS[0]} of ${caps.warmUp} messages a day${note} reached, resumes at 00:00`,
      until: midnight(),
    };
  }
  // Only numbers the account never messaged wait: the claim takes groups and known numbers.
  if (caps.newContacts !== null && (sent.newContacts ?? 0) >= caps.newContacts) {
    return {
      kind: 'open',
      scope: 'known',
      reason: `${ONE_TO_ONE_HOLDS[1]} of ${caps.newContacts} a day${note} reached, resumes at 00:00`,
      until: midnight(),
    };
  }
  return { kind: 'open', scope: 'all' };
}

/** How long "typing…" shows before a text: grows with its length, 1 to 5 s, never longer than the pause. */
export function typingMs(textLength: number, pauseMs: number): number {
  if (pauseMs <= 0) return 0;
  return Math.min(pauseMs, Math.max(1000, Math.min(5000, 1000 + textLength * 40)));
}

/** What the account's gate needs from the store. */
export interface PolicySource {
  policyOf(
    accountId: string,
  ): Promise<{ row: PolicyRow | undefined; linkedAt: Date | null; health: HealthEffect | null }>;
  /** `newContacts`: also count the numbers messaged for the first time (a cap asks for them). */
  countSentSince(accountId: string, since: Date, newContacts: boolean): Promise<SentToday>;
  setHold(accountId: string, reason: string | null, until: Date | null): Promise<void>;
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
  policy: AccountPolicy & { newContactsPerDay: number | null };
  private linkedAt: Date | null = null;
  private health: HealthEffect | null = null;
  private sent: SentToday = { all: 0, oneToOne: 0 };
  private loadedAt = 0;
  private dayEndsAt = 0;
  private heldReason: string | null = null;
  private loaded = false;

  constructor(
    readonly accountId: string,
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
    const { row, linkedAt, health } = await this.source.policyOf(this.accountId);
    this.policy = resolvePolicy(row, this.defaults);
    this.linkedAt = linkedAt;
    this.health = health;
    this.heldReason = row?.heldReason ?? null;
    const at = new Date(now);
    this.sent = await this.source.countSentSince(
      this.accountId,
      localDayStart(at, this.policy.timezone),
      this.policy.newContactsPerDay !== null,
    );
    this.dayEndsAt = nextLocalTime(at, this.policy.timezone, '00:00').getTime();
    this.loadedAt = now;
    this.loaded = true;
  }

  decide(now = new Date()): SendDecision {
    return decide(this.policy, this.linkedAt, this.sent, now, this.health);
  }

  /**
   * A message went out: counted against today's limits until the next read. Whether a number was
   * new only the database knows: with a new-contact cap, a one-to-one send reads the count again.
   */
  noteSent(chatId: string): void {
    this.sent.all += 1;
    // A channel post is no one-to-one chat either.
    if (isGroupJid(chatId) || isChannelJid(chatId)) return;
    this.sent.oneToOne += 1;
    if (this.policy.newContactsPerDay === null) return;
    // Counted as new until the count is read again (before the next claim of the loop's own):
    // the claim made with this record never goes past the cap.
    this.sent.newContacts = (this.sent.newContacts ?? 0) + 1;
    this.invalidate();
  }

  /** The pause before the next message, drawn from the account's range; doubled while its health is on watch. */
  delay(): number {
    const { delayMinMs: lo, delayMaxMs: hi } = this.policy;
    const drawn = lo + Math.floor(Math.random() * (hi - lo + 1));
    return this.health?.state === 'watch' ? drawn * 2 : drawn;
  }

  /** Shows on the account's jobs why its recipients wait (null: they do not); written only on change. */
  async hold(reason: string | null, until: Date | null): Promise<void> {
    if (reason === this.heldReason) return;
    await this.source.setHold(this.accountId, reason, until);
    this.heldReason = reason;
  }
}
