import { eq, inArray, sql } from 'drizzle-orm';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { cloudAccounts } from '../../db/schema.ts';
import { cloudSecretContext, decryptValue, sealSecret } from '../../db/secrets.ts';
import {
  createGraphClient,
  type GraphClient,
  type PhoneNumberInfo,
} from '../../transport/cloud/graph-client.ts';

/** A Cloud API account's credentials in the clear (read only where a call to Meta needs them). */
export type CloudCredentials = {
  accountId: string;
  phoneNumberId: string;
  wabaId: string;
  /** The business portfolio that owns the WhatsApp Business Account; null when Meta named none. */
  portfolioId: string | null;
  accessToken: string;
  appSecret: string;
  verifyToken: string;
  messagingLimitTier: string | null;
  throughputLevel: string | null;
};

export type CloudAccountRow = typeof cloudAccounts.$inferSelect;

const SEALED = ['accessToken', 'appSecret', 'verifyToken'] as const;

/** The row to insert: the three secrets sealed like the WhatsApp keys (db/secrets.ts). */
export function sealedAccount(
  key: Buffer | undefined,
  values: Omit<typeof cloudAccounts.$inferInsert, (typeof SEALED)[number]> &
    Record<(typeof SEALED)[number], string>,
): typeof cloudAccounts.$inferInsert {
  const row = { ...values };
  for (const f of SEALED) row[f] = sealSecret(key, cloudSecretContext(values.accountId, f), values[f]);
  return row;
}

export async function cloudAccountRow(db: Db, accountId: string): Promise<CloudAccountRow | undefined> {
  const [row] = await db.select().from(cloudAccounts).where(eq(cloudAccounts.accountId, accountId));
  return row;
}

/** The account's credentials, unsealed; undefined when the account is no Cloud API account. */
export async function cloudCredentials(
  db: Db,
  key: Buffer | undefined,
  accountId: string,
): Promise<CloudCredentials | undefined> {
  const row = await cloudAccountRow(db, accountId);
  if (!row) return undefined;
  const open = (f: (typeof SEALED)[number]) => decryptValue(key, cloudSecretContext(accountId, f), row[f]);
  return {
    accountId,
    phoneNumberId: row.phoneNumberId,
    wabaId: row.wabaId,
    portfolioId: row.portfolioId,
    accessToken: open('accessToken'),
    appSecret: open('appSecret'),
    verifyToken: open('verifyToken'),
    messagingLimitTier: row.messagingLimitTier,
    throughputLevel: row.throughputLevel,
  };
}

export function graphClient(
  config: Pick<Config, 'cloudApiBaseUrl' | 'sendTimeoutMs'>,
  accessToken: string,
): GraphClient {
  return createGraphClient({
    baseUrl: config.cloudApiBaseUrl,
    accessToken,
    timeoutMs: Math.max(1000, Math.floor(config.sendTimeoutMs * 0.75)),
  });
}

/** What Meta said of the number, written where any node reads it (GET /api/sessions). */
export async function recordPhoneInfo(db: Db, accountId: string, info: PhoneNumberInfo): Promise<void> {
  await db
    .update(cloudAccounts)
    .set({
      displayPhoneNumber: info.displayPhoneNumber,
      verifiedName: info.verifiedName,
      qualityRating: info.qualityRating,
      messagingLimitTier: info.messagingLimitTier,
      throughputLevel: info.throughputLevel,
      checkedAt: new Date(),
    })
    .where(eq(cloudAccounts.accountId, accountId));
}

/**
 * The business portfolio that owns the WhatsApp Business Account, as Meta names it, or null when
 * Meta does not answer it (logged): the messaging limit is then counted per WhatsApp Business
 * Account (messaging-limit.ts).
 */
export async function readPortfolio(
  client: GraphClient,
  wabaId: string,
  log: { warn(obj: object, msg: string): void },
): Promise<string | null> {
  try {
    return await client.getPortfolioId(wabaId);
  } catch (err) {
    log.warn({ err, wabaId }, 'the business portfolio of the WhatsApp Business Account was not read');
    return null;
  }
}

/**
 * Stores the portfolio read for an account connected before it was asked. The recipients its
 * WhatsApp Business Account counted in the last 24 hours are counted in the portfolio too, so that
 * the change of key frees no room (a number of the account still without it keeps the old count).
 */
export async function recordPortfolio(
  db: Db,
  account: { accountId: string; wabaId: string },
  portfolioId: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.update(cloudAccounts).set({ portfolioId }).where(eq(cloudAccounts.accountId, account.accountId));
    await tx.execute(
      sql`INSERT INTO cloud_portfolios (portfolio) VALUES (${portfolioId}) ON CONFLICT (portfolio) DO NOTHING`,
    );
    await tx.execute(
      sql`INSERT INTO cloud_portfolio_recipients (portfolio, recipient, last_sent_at)
          SELECT ${portfolioId}, r.recipient, r.last_sent_at FROM cloud_portfolio_recipients r
          WHERE r.portfolio = ${account.wabaId}
          ON CONFLICT (portfolio, recipient) DO UPDATE
            SET last_sent_at = GREATEST(cloud_portfolio_recipients.last_sent_at, EXCLUDED.last_sent_at)`,
    );
  });
}

/** The Cloud API rows of these accounts, by account id. */
export async function cloudAccountsOf(db: Db, accountIds: string[]): Promise<Map<string, CloudAccountRow>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db.select().from(cloudAccounts).where(inArray(cloudAccounts.accountId, accountIds));
  return new Map(rows.map((r) => [r.accountId, r]));
}
