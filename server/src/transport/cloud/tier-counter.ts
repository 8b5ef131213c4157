/**
 * Meta's messaging limit. The Messaging Limits page
 * (https://developers.facebook.com/documentation/business-messaging/whatsapp/messaging-limits):
 * "the maximum number of unique WhatsApp user phone numbers your business can deliver messages to,
 * outside of a customer service window, within a moving 24-hour period": 250 for a new business
 * portfolio, then 2,000, 10,000, 100,000 and unlimited. A recipient counts once however many
 * messages it gets, and leaves the window 24 hours after its latest one. Since 7 October 2025 the
 * limit is "calculated and set at the business portfolio level and […] shared by all business
 * phone numbers within a portfolio" (same page; "Upcoming changes to messaging limits"): the
 * numbers of one portfolio share one counter (tier-pool.ts).
 *
 * The counter is told only about sends that count (templates to people outside their 24-hour
 * window; the engine knows which). Pure: times are passed in, in ms; they must not go backwards.
 */

export const DAY_MS = 24 * 60 * 60 * 1000;

/** Meta's tier names (`messaging_limit_tier`, `max_daily_conversations_per_business`) as a count of recipients. */
const TIERS: Record<string, number> = {
  TIER_50: 50,
  TIER_250: 250,
  TIER_1K: 1_000,
  TIER_2K: 2_000,
  TIER_10K: 10_000,
  TIER_100K: 100_000,
  TIER_UNLIMITED: Number.POSITIVE_INFINITY,
};

/** The limit a tier name stands for; an unknown or missing tier is read as the lowest for a new portfolio (250). */
export function tierLimit(tier: string | null | undefined): number {
  return TIERS[(tier ?? '').toUpperCase()] ?? 250;
}

export type TierCounter = ReturnType<typeof createTierCounter>;

export function createTierCounter(initialLimit: number, windowMs = DAY_MS) {
  if (!(initialLimit >= 0)) throw new RangeError('limit: a count of recipients, or Infinity');
  let limit = initialLimit;
  /** Recipient → time of its latest counted send; Map order is oldest first (re-sends move to the end). */
  const lastSent = new Map<string, number>();
  let latest = Number.NEGATIVE_INFINITY;

  function expire(at: number) {
    if (at < latest) throw new RangeError('times must not go backwards');
    latest = at;
    for (const [recipient, time] of lastSent) {
      if (time + windowMs > at) break;
      lastSent.delete(recipient);
    }
  }

  return {
    get limit() {
      return limit;
    },
    /** A new limit (Meta moved the portfolio to another tier); the recipients in the window stay counted. */
    setLimit(next: number) {
      if (!(next >= 0)) throw new RangeError('limit: a count of recipients, or Infinity');
      limit = next;
    },
    /** Recipients in the window now. */
    used(at: number): number {
      expire(at);
      return lastSent.size;
    },
    /** How many more new recipients may be sent to now. */
    remaining(at: number): number {
      expire(at);
      return Math.max(0, limit - lastSent.size);
    },
    /** Whether a send to this recipient now stays within the limit (one already in the window always does). */
    allows(recipient: string, at: number): boolean {
      expire(at);
      return lastSent.has(recipient) || lastSent.size < limit;
    },
    /** Counts a send made now; false (and nothing counted) when it would go beyond the limit. */
    record(recipient: string, at: number): boolean {
      expire(at);
      if (!lastSent.has(recipient) && lastSent.size >= limit) return false;
      lastSent.delete(recipient);
      lastSent.set(recipient, at);
      return true;
    },
    /** When the next new recipient may be sent to: now if there is room, else when the oldest one leaves the window. */
    nextRoomAt(at: number): number {
      expire(at);
      if (lastSent.size < limit) return at;
      const excess = lastSent.size - limit;
      let i = 0;
      for (const time of lastSent.values()) {
        if (i++ === excess) return time + windowMs;
      }
      return at;
    },
    /**
     * A send summary's split before sending: of these recipients (distinct numbers), how many fit
     * now (those already in the window, then new ones up to the room left) and how many must wait.
     */
    plan(recipients: Iterable<string>, at: number): { now: number; waiting: number } {
      expire(at);
      let room = Math.max(0, limit - lastSent.size);
      let fits = 0;
      let waiting = 0;
      for (const r of new Set(recipients)) {
        if (lastSent.has(r)) fits++;
        else if (room > 0) {
          room--;
          fits++;
        } else waiting++;
      }
      return { now: fits, waiting };
    },
  };
}
