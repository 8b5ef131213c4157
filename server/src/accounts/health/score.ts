import { HEALTH_PAUSE_BELOW, HEALTH_WATCH_BELOW, type HealthSignals, type HealthState } from '@wa/contract';

/**
 * An account's health score, from the signals of its window (docs/accounts.md, "Account health and the circuit breaker"): 100
 * less a penalty per signal, each a ramp from where it starts to matter to its worst, capped.
 * The worst rates alone take the score below the pause threshold; a single moderate one only
 * into watch. Pure: the tables of score.test.ts are its specification.
 */

/** Rates are read only over this many messages or numbers at least (2 failures of 3 say nothing). */
export const MIN_SAMPLE = 20;
/** A low reply rate counts only over this many one-to-one messages. */
export const REPLY_SAMPLE = 50;

/** 0 up to `from`, `max` from `to` on, linear between. */
export function ramp(value: number, from: number, to: number, max: number): number {
  if (value <= from) return 0;
  if (value >= to) return max;
  return ((value - from) / (to - from)) * max;
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
const times = (n: number) => (n === 1 ? 'once' : `${n} times`);

type Penalty = { points: number; reason: string };

/** Each signal's penalty, with the reason shown when it is the largest. */
export function penalties(s: HealthSignals): Penalty[] {
  const out: Penalty[] = [];
  const outcomes = s.sent + s.failed;
  if (outcomes >= MIN_SAMPLE) {
    const rate = s.failed / outcomes;
    out.push({ points: ramp(rate, 0.05, 0.5, 65), reason: `${pct(rate)} of messages failed` });
  }
  if (s.sent >= MIN_SAMPLE) {
    const rate = s.undelivered / s.sent;
    out.push({ points: ramp(rate, 0.1, 0.5, 50), reason: `${pct(rate)} of messages were not delivered` });
  }
  if (s.lookups >= MIN_SAMPLE) {
    const rate = s.notOnWhatsApp / s.lookups;
    out.push({
      points: ramp(rate, 0.1, 0.5, 65),
      reason: `${pct(rate)} of the numbers looked up are not on WhatsApp`,
    });
  }
  if (s.oneToOneSent >= MIN_SAMPLE) {
    const rate = s.stops / s.oneToOneSent;
    out.push({ points: ramp(rate, 0.01, 0.05, 50), reason: `${pct(rate)} of recipients replied STOP` });
  }
  if (s.oneToOneSent >= REPLY_SAMPLE) {
    const rate = s.replies / s.oneToOneSent;
    out.push({ points: ramp(0.05 - rate, 0, 0.05, 15), reason: `only ${pct(rate)} of recipients replied` });
  }
  out.push({
    points: Math.min(65, 25 * s.restrictions),
    reason: `WhatsApp restricted new chats ${times(s.restrictions)}`,
  });
  out.push({
    points: Math.min(25, 5 * s.rateLimited),
    reason: `WhatsApp asked the account to slow down ${times(s.rateLimited)}`,
  });
  out.push({
    points: Math.min(25, 5 * Math.max(0, s.disconnects - 3)),
    reason: `the connection dropped ${times(s.disconnects)}`,
  });
  out.push({ points: ramp(s.newContacts, 150, 500, 20), reason: `${s.newContacts} new contacts messaged` });
  return out.filter((p) => p.points > 0);
}

export type Health = { score: number; reason: string | null };

export function scoreHealth(s: HealthSignals): Health {
  const found = penalties(s);
  const total = found.reduce((sum, p) => sum + p.points, 0);
  const score = Math.max(0, Math.min(100, Math.round(100 - total)));
  const worst = found.reduce<Penalty | null>((a, b) => (a && a.points >= b.points ? a : b), null);
  return { score, reason: score < HEALTH_WATCH_BELOW && worst ? capitalise(worst.reason) : null };
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The state shown: paused while the account's sends are paused (by WhatsApp or the breaker), else by score. */
export function stateOf(score: number, pausedNow: boolean): HealthState {
  if (pausedNow) return 'paused';
  return score < HEALTH_WATCH_BELOW ? 'watch' : 'good';
}

/** The breaker trips: the score is below the pause threshold and nothing pauses the account yet. */
export function breakerTrips(score: number, pausedNow: boolean): boolean {
  return !pausedNow && score < HEALTH_PAUSE_BELOW;
}

const PROTECT_PREFIX = 'Paused to protect this account: ';

/** The longest cooling: HEALTH_COOLING_MS's own upper bound (config.ts). */
export const MAX_COOLING_MS = 7 * 86_400_000;

/** The cooling after `earlier` breaker pauses within the window: twice as long each time, up to a week. */
export function coolingMs(base: number, earlier: number): number {
  return Math.min(MAX_COOLING_MS, base * 2 ** Math.min(earlier, 10));
}

/** How much longer a cooling is than the first, in words (a week at most). */
function longerText(cooling: number, base: number): string {
  if (cooling >= MAX_COOLING_MS) return 'a week';
  const times = Math.round(cooling / base);
  return times === 2 ? 'twice as long' : `${times} times as long`;
}

/**
 * The pause's text shown to the user; a cooling longer than HEALTH_COOLING_MS (`base`) says why
 * and how long (the page shows its end).
 */
export function protectReason(reason: string | null, cooling = 0, base = cooling): string {
  const why = reason ?? 'its health score is too low';
  // The reason reads on after the colon: lower-case, except a name (WhatsApp).
  const lead = why.startsWith('WhatsApp') ? why : `${why.charAt(0).toLowerCase()}${why.slice(1)}`;
  if (cooling <= base) return `${PROTECT_PREFIX}${lead}`;
  return `${PROTECT_PREFIX}${lead}; paused again within a day, so for ${longerText(cooling, base)}`;
}

export const NO_SIGNALS: HealthSignals = {
  sent: 0,
  oneToOneSent: 0,
  failed: 0,
  undelivered: 0,
  lookups: 0,
  notOnWhatsApp: 0,
  restrictions: 0,
  rateLimited: 0,
  disconnects: 0,
  stops: 0,
  replies: 0,
  newContacts: 0,
};
