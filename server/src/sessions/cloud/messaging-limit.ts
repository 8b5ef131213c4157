import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import type { LimitReservation, MessagingLimit } from '../../transport/cloud/tier-pool.ts';

/**
 * The business's messaging limit counted in the database (tables cloud_portfolios and
 * cloud_portfolio_recipients), so that the Cloud API numbers of one business share one count
 * whichever node drives each of them. The window is the database's clock, the same for every node.
 *
 * Meta sets the limit per business portfolio, which may own several WhatsApp Business Accounts.
 * The portfolio is read from Meta when the number is connected (`owner_business_info` of its
 * WhatsApp Business Account, sessions/cloud/accounts.ts `readPortfolio`). When Meta does not name
 * it (a token without the permission, an error), the count is kept per WhatsApp Business Account,
 * and Meta's own refusal (130429 and the like) still holds the sends beyond the portfolio's limit.
 */
const WINDOW = sql`interval '24 hours'`;

/** The key the business's count is kept under: its portfolio, else its WhatsApp Business Account. */
export function portfolioKey(account: { portfolioId: string | null; wabaId: string }): string {
  return account.portfolioId ?? account.wabaId;
}

/** The count of one business's recipients (`portfolioKey`). */
export function portfolioLimit(db: Db, portfolio: string): MessagingLimit {
  return { reserve: (to, limit) => reserveRecipient(db, portfolio, to, limit) };
}

/**
 * Counts a send to `to` now when it fits the limit (a recipient in the window always does): one
 * transaction that holds the business's row, so that two nodes cannot both take the last place.
 */
export function reserveRecipient(
  db: Db,
  portfolio: string,
  to: string,
  limit: number,
): Promise<LimitReservation> {
  return db.transaction(async (tx) => {
    await tx.execute(
      sql`INSERT INTO cloud_portfolios (portfolio) VALUES (${portfolio}) ON CONFLICT (portfolio) DO NOTHING`,
    );
    await tx.execute(sql`SELECT 1 FROM cloud_portfolios WHERE portfolio = ${portfolio} FOR UPDATE`);
    await tx.execute(
      sql`DELETE FROM cloud_portfolio_recipients
          WHERE portfolio = ${portfolio} AND last_sent_at <= clock_timestamp() - ${WINDOW}`,
    );
    if (Number.isFinite(limit)) {
      const [row] = await queryRows<{ known: boolean; used: number }>(
        tx,
        sql`SELECT EXISTS (SELECT 1 FROM cloud_portfolio_recipients WHERE portfolio = ${portfolio} AND recipient = ${to}) AS known,
                   (SELECT count(*)::int FROM cloud_portfolio_recipients WHERE portfolio = ${portfolio}) AS used`,
      );
      if (!row!.known && row!.used >= limit) {
        // Room frees when enough of the oldest leave: the (used - limit + 1)th oldest, 24 hours on.
        const [oldest] = await queryRows<{ until: Date | string }>(
          tx,
          sql`SELECT last_sent_at + ${WINDOW} AS until FROM cloud_portfolio_recipients
              WHERE portfolio = ${portfolio} ORDER BY last_sent_at OFFSET ${row!.used - limit} LIMIT 1`,
        );
        return { ok: false, until: new Date(oldest!.until) };
      }
    }
    await tx.execute(
      sql`INSERT INTO cloud_portfolio_recipients (portfolio, recipient, last_sent_at)
          VALUES (${portfolio}, ${to}, clock_timestamp())
          ON CONFLICT (portfolio, recipient) DO UPDATE SET last_sent_at = EXCLUDED.last_sent_at`,
    );
    return { ok: true };
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
