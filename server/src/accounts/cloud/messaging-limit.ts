import { sql } from 'drizzle-orm';
import { batcher } from '../../db/batching.ts';
import { type Db, queryRows } from '../../db/client.ts';
import type { LimitReservation, MessagingLimit } from '../../transport/cloud/tier-pool.ts';

/**
 * The business's messaging limit counted in the database (tables cloud_portfolios and
 * cloud_portfolio_recipients), so that the Cloud API numbers of one business share one count
 * whichever node drives each of them. The window is the database's clock, the same for every node.
 *
 * Meta sets the limit per business portfolio, which may own several WhatsApp Business Accounts.
 * The portfolio is read from Meta when the number is connected (`owner_business_info` of its
 * WhatsApp Business Account, accounts/cloud/accounts.ts `readPortfolio`). When Meta does not name
 * it (a token without the permission, an error), the count is kept per WhatsApp Business Account,
 * and Meta's own refusal (130429 and the like) still holds the sends beyond the portfolio's limit.
 */
const WINDOW = sql`interval '24 hours'`;

/** The key the business's count is kept under: its portfolio, else its WhatsApp Business Account. */
export function portfolioKey(account: { portfolioId: string | null; wabaId: string }): string {
  return account.portfolioId ?? account.wabaId;
}

/** One send to count: its recipient (digits) and the limit it is counted against. */
type Ask = { to: string; limit: number };

/**
 * The count of one business's recipients (`portfolioKey`). The sends a number's lanes ask for
 * while one count is written wait and are counted together in the next (group commit,
 * db/batching.ts): each count holds the business's row, so counted one by one, a HIGH number's
 * 1,000 sends a second would queue on that row.
 */
export function portfolioLimit(db: Db, portfolio: string): MessagingLimit {
  const reserve = batcher(
    (asks: Ask[]) => reserveRecipients(db, portfolio, asks),
    () => undefined,
  );
  return { reserve: (to, limit) => reserve({ to, limit }) };
}

/**
 * Counts sends now, in order, each when it fits its limit (a recipient in the window, or one
 * counted earlier in the list, always does): one transaction that holds the business's row, so
 * that two nodes cannot both take the last place.
 */
export function reserveRecipients(db: Db, portfolio: string, asks: Ask[]): Promise<LimitReservation[]> {
  return db.transaction(async (tx) => {
    await tx.execute(
      sql`INSERT INTO cloud_portfolios (portfolio) VALUES (${portfolio}) ON CONFLICT (portfolio) DO NOTHING`,
    );
    await tx.execute(sql`SELECT 1 FROM cloud_portfolios WHERE portfolio = ${portfolio} FOR UPDATE`);
    await tx.execute(
      sql`DELETE FROM cloud_portfolio_recipients
          WHERE portfolio = ${portfolio} AND last_sent_at <= clock_timestamp() - ${WINDOW}`,
    );
    const counted = new Set<string>();
    let used = 0;
    if (asks.some((a) => Number.isFinite(a.limit))) {
      const tos = [...new Set(asks.map((a) => a.to))];
      const [row] = await queryRows<{ known: string[] | null; used: number }>(
        tx,
        sql`SELECT (SELECT array_agg(recipient) FROM cloud_portfolio_recipients
                    WHERE portfolio = ${portfolio} AND recipient = ANY(${sql.param(tos)}::text[])) AS known,
                   (SELECT count(*)::int FROM cloud_portfolio_recipients WHERE portfolio = ${portfolio}) AS used`,
      );
      for (const to of row!.known ?? []) counted.add(to);
      used = row!.used;
    }
    const fits = asks.map(({ to, limit }) => {
      if (counted.has(to)) return true;
      if (used >= limit) return false;
      counted.add(to);
      used += 1;
      return true;
    });
    const sent = [...new Set(asks.filter((_, i) => fits[i]).map((a) => a.to))];
    if (sent.length > 0)
      await tx.execute(
        sql`INSERT INTO cloud_portfolio_recipients (portfolio, recipient, last_sent_at)
            SELECT ${portfolio}, r, clock_timestamp() FROM unnest(${sql.param(sent)}::text[]) AS r
            ON CONFLICT (portfolio, recipient) DO UPDATE SET last_sent_at = EXCLUDED.last_sent_at`,
      );
    let until: Date | null = null;
    if (fits.includes(false)) {
      // Room frees when enough of the oldest leave: the (used - limit + 1)th oldest, 24 hours on,
      // for the smallest limit of those that did not fit.
      const limit = Math.min(...asks.filter((_, i) => !fits[i]).map((a) => a.limit));
      const [oldest] = await queryRows<{ until: Date | string }>(
        tx,
        sql`SELECT last_sent_at + ${WINDOW} AS until FROM cloud_portfolio_recipients
            WHERE portfolio = ${portfolio} ORDER BY last_sent_at OFFSET ${Math.max(0, used - limit)} LIMIT 1`,
      );
      // No one counted at all (a limit of 0): a day from now.
      until = oldest ? new Date(oldest.until) : new Date(Date.now() + 24 * 3_600_000);
    }
    return fits.map((ok): LimitReservation => (ok ? { ok: true } : { ok: false, until: until! }));
  });
}

/** The business's recipients in the moving 24 hours (what its limit has used). */
export async function portfolioUse(db: Db, portfolio: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n FROM cloud_portfolio_recipients
        WHERE portfolio = ${portfolio} AND last_sent_at > clock_timestamp() - ${WINDOW}`,
  );
  return row?.n ?? 0;
}
