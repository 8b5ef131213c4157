import type { CreditPrices, CreditPricesBody } from '@wa/contract';
import { recordAudit } from '../audit/record.ts';
import type { Db } from '../db/client.ts';
import { readCreditPrices, writeCreditPrices } from './prices.ts';

/**
 * An admin sets the credits per recipient of a kind of account. Recipients already
 * accepted keep the price they were charged; the change applies to sends (and retries) after it.
 */
export async function setCreditPricesAsAdmin(
  db: Db,
  admin: { id: string; username: string },
  ip: string | null,
  body: CreditPricesBody,
): Promise<CreditPrices> {
  return db.transaction(async (tx) => {
    const before = await readCreditPrices(tx);
    const after = await writeCreditPrices(tx, body);
    await recordAudit(tx, { actor: admin, action: 'credits.prices', details: { before, after }, ip });
    return after;
  });
}
