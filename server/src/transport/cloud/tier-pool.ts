import { createTierCounter, DAY_MS } from './tier-counter.ts';

/**
 * The messaging limit shared by the Cloud API numbers of one business (Messaging Limits page,
 * developers.facebook.com/documentation/business-messaging/whatsapp/messaging-limits: "calculated
 * and set at the business portfolio level and are shared by all business phone numbers within a
 * portfolio. This means that if a business portfolio has multiple business phone numbers, it's
 * possible for one number to consume all of the portfolio's messaging capability"). A transport
 * asks it before each counted send; the product's one counts in the database, so that the numbers
 * of a business driven by different nodes share one count (accounts/cloud/messaging-limit.ts).
 */
export type LimitReservation = { ok: true } | { ok: false; until: Date };

export type MessagingLimit = {
  /**
   * Counts a send to `to` (digits) now against `limit` recipients in 24 hours: a recipient
   * already in the window always fits; a new one only while there is room. When it does not fit
   * nothing is counted, and `until` says when the oldest recipient leaves the window.
   */
  reserve(to: string, limit: number): Promise<LimitReservation>;
};

/** A recipient (digits) of a counted send and when it was sent. */
export type CountedSend = { to: string; at: Date };

/**
 * A count held in this process only, started from `recent` (oldest first): for a transport driven
 * on its own (the bench, a transport's own tests), never for numbers that other nodes may drive.
 */
export function memoryMessagingLimit(
  recent: CountedSend[] = [],
  now: () => number = Date.now,
): MessagingLimit {
  const counter = createTierCounter(Number.POSITIVE_INFINITY);
  // The counter refuses times that go backwards (a wall clock may).
  let clock = Number.NEGATIVE_INFINITY;
  const tick = (at: number) => {
    clock = Math.max(clock, at);
    return clock;
  };
  const start = now();
  for (const r of recent) {
    const at = tick(Math.min(r.at.getTime(), start));
    if (at > start - DAY_MS) counter.record(r.to, at);
  }
  return {
    async reserve(to, limit) {
      counter.setLimit(limit);
      const at = tick(now());
      if (counter.record(to, at)) return { ok: true };
      return { ok: false, until: new Date(counter.nextRoomAt(at)) };
    },
  };
}
