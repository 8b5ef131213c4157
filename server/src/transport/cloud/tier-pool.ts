import { createTierCounter, DAY_MS, type TierCounter } from './tier-counter.ts';

/**
 * The messaging limit shared by the Cloud API numbers of one business (Messaging Limits page,
 * developers.facebook.com/documentation/business-messaging/whatsapp/messaging-limits: "calculated
 * and set at the business portfolio level and are shared by all business phone numbers within a
 * portfolio. This means that if a business portfolio has multiple business phone numbers, it's
 * possible for one number to consume all of the portfolio's messaging capability"). The product
 * knows each number's WhatsApp Business Account, which belongs to one portfolio: numbers of the
 * same account share one counter here. Each counter's clock never goes backwards (the counter
 * refuses times that do; a wall clock may).
 */
export type SharedTier = {
  counter: TierCounter;
  /** The latest time given to the counter (ms). */
  clock: number;
};

/** A recipient (digits) of a counted send and when it was sent. */
export type CountedSend = { to: string; at: Date };

/** A counter of its own for a number outside any pool (its past sends counted from `recent`). */
export function tierOf(limit: number, recent: CountedSend[], now: number): SharedTier {
  const shared: SharedTier = { counter: createTierCounter(limit), clock: Number.NEGATIVE_INFINITY };
  for (const r of recent) {
    shared.clock = Math.max(shared.clock, Math.min(r.at.getTime(), now));
    if (shared.clock > now - DAY_MS) shared.counter.record(r.to, shared.clock);
  }
  return shared;
}

export type TierPool = ReturnType<typeof createTierPool>;

/** The counters of one process, by business account id. */
export function createTierPool() {
  const pools = new Map<string, Promise<SharedTier>>();
  return {
    /**
     * The business account's shared counter: made the first time from `recent` (the template
     * sends of the last 24 hours of all its numbers, oldest first), then shared. A number whose
     * tier Meta gives higher raises the shared limit (Meta set each portfolio to the highest
     * limit of its numbers).
     */
    async join(
      key: string,
      limit: number,
      recent: () => Promise<CountedSend[]>,
      now: number,
    ): Promise<SharedTier> {
      let pending = pools.get(key);
      if (!pending) {
        pending = recent()
          .catch(() => [])
          .then((sends) => tierOf(limit, sends, now));
        pools.set(key, pending);
      }
      const shared = await pending;
      if (limit > shared.counter.limit) shared.counter.setLimit(limit);
      return shared;
    },
  };
}
