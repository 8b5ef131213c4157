import { CLOUD_TEXTS, type CostEstimateResponse, costText, tierText } from '@wa/contract';
import { asc, eq } from 'drizzle-orm';
import { cloudAccountRow } from '../../accounts/cloud/accounts.ts';
import { portfolioKey, portfolioUse } from '../../accounts/cloud/messaging-limit.ts';
import { findTemplate } from '../../accounts/cloud/templates.ts';
import { recordAudit } from '../../audit/record.ts';
import type { AppContext } from '../../context.ts';
import { assertMaySetPrices } from '../../credits/price-settings.ts';
import type { Db } from '../../db/client.ts';
import { cloudPrices } from '../../db/schema.ts';
import { badRequest } from '../../errors.ts';
import { authorizeAccount } from '../../policy/access.ts';
import { tierLimit } from '../../transport/cloud/tier-counter.ts';
import type { UserRow } from '../../users/repository.ts';

export async function cloudPriceList(db: Db): Promise<Array<{ category: string; priceUnits: number }>> {
  return db
    .select({ category: cloudPrices.category, priceUnits: cloudPrices.priceUnits })
    .from(cloudPrices)
    .orderBy(asc(cloudPrices.category));
}

/**
 * A top-level admin sets Meta's price of some categories (they apply to every user's estimates);
 * each change is audited with the prices before and after, in the same transaction.
 */
export async function setCloudPricesAsAdmin(
  db: Db,
  admin: { id: string; username: string; role: string; managedBy: string | null },
  ip: string | null,
  prices: Array<{ category: string; priceUnits: number }>,
): Promise<Array<{ category: string; priceUnits: number }>> {
  assertMaySetPrices(admin);
  return db.transaction(async (tx) => {
    const before = await cloudPriceList(tx);
    for (const p of prices) {
      await tx
        .insert(cloudPrices)
        .values({ category: p.category, priceUnits: p.priceUnits })
        .onConflictDoUpdate({
          target: cloudPrices.category,
          set: { priceUnits: p.priceUnits, updatedAt: new Date() },
        });
    }
    const after = await cloudPriceList(tx);
    await recordAudit(tx, { actor: admin, action: 'cloud.prices', details: { before, after }, ip });
    return after;
  });
}

/** The price of one delivered message of a category, in ten-thousandths of a rupee (0 when unknown). */
export async function priceOf(db: Db, category: string): Promise<number> {
  const [row] = await db
    .select({ p: cloudPrices.priceUnits })
    .from(cloudPrices)
    .where(eq(cloudPrices.category, category.toLowerCase()));
  return row?.p ?? 0;
}

/**
 * What a template send to `recipients` numbers would cost at Meta's rate for the template's
 * category, and how many of them the account's 24-hour tier lets go now (the send summary, before
 * sending). The tier's count is the distinct template recipients of the last 24 hours of every
 * number of the account's business portfolio, as every node counts them: Meta's limit is
 * shared by a business's numbers (accounts/cloud/messaging-limit.ts).
 */
export async function estimateCost(
  ctx: AppContext,
  user: UserRow,
  accountId: string,
  input: { templateName: string; language: string; recipients: number },
): Promise<CostEstimateResponse> {
  await authorizeAccount(ctx.db, user, 'read', accountId);
  const template = await findTemplate(ctx.db, accountId, input.templateName, input.language);
  if (!template) throw badRequest(CLOUD_TEXTS.noSuchTemplate(input.templateName, input.language));
  const category = template.category.toLowerCase();
  const costUnits = (await priceOf(ctx.db, category)) * input.recipients;
  const account = await cloudAccountRow(ctx.db, accountId);
  const limit = tierLimit(account?.messagingLimitTier);
  const used = account ? await portfolioUse(ctx.db, portfolioKey(account)) : 0;
  const room = Number.isFinite(limit) ? Math.max(0, limit - used) : input.recipients;
  const now = Math.min(room, input.recipients);
  const waiting = input.recipients - now;
  return {
    success: true,
    category,
    costUnits,
    text: costText(category, costUnits, input.recipients),
    now,
    waiting,
    tierText: tierText(now, waiting),
  };
}
