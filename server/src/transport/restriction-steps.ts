/**
 * The growing pause of an account's 463s, kept in its wa_sessions row: the
 * Baileys transport's storage port (baileys/restrictions.ts), so that the node that takes the
 * account over, or this one after a restart, goes on from the count the last one reached.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.ts';

/** A day without a 463 starts the count again. */
export const RESTRICTION_STEPS_RESET_MS = 24 * 3_600_000;

export type RestrictionSteps = {
  /**
   * Counts one more 463 with no end given and returns how many came before it in a row (0: the
   * first, or the first after a day without one). One statement: two calls never read the same count.
   */
  step(): Promise<number>;
};

export function restrictionSteps(db: Db, accountId: string): RestrictionSteps {
  return {
    async step() {
      const [row] = await queryRows<{ before: number }>(
        db,
        sql`UPDATE wa_sessions
            SET restriction_steps = CASE
                  WHEN restriction_step_at > now() - ${RESTRICTION_STEPS_RESET_MS} * interval '1 millisecond'
                  THEN restriction_steps + 1 ELSE 1 END,
                restriction_step_at = now()
            WHERE session_id = ${accountId}
            RETURNING restriction_steps - 1 AS before`,
      );
      if (!row) throw new Error(`no session ${accountId}`);
      return Number(row.before);
    },
  };
}
