import { type CreditPrices, type CreditPricesBody, PRICE_TEXTS } from '@wa/contract';
import { recordAudit } from '../audit/record.ts';
import type { Db } from '../db/client.ts';
import { forbidden } from '../errors.ts';
import { readCreditPrices, writeCreditPrices } from './prices.ts';

/** Prices that apply to every user are changed only by a top-level admin (PRICE_TEXTS). */
export function assertMaySetPrices(admin: { role: string; managedBy: string | null }): void {
  if (admin.role !== 'ADMIN' || admin.managedBy !== null) throw forbidden(PRICE_TEXTS.topLevelOnly);
}

/**
 * An admin sets the credits per recipient of a kind of account. Recipients already
 * accepted keep the price they were charged; the change applies to sends (and retries) after it.
 */
export async function setCreditPricesAsAdmin(
  db: Db,
  admin: { id: string; username: string; role: string; managedBy: string | null },
  ip: string | null,
  body: CreditPricesBody,
): Promise<CreditPrices> {
  assertMaySetPrices(admin);
  return db.transaction(async (tx) => {
    const before = await readCreditPrices(tx);
    const after = await writeCreditPrices(tx, body);
    await recordAudit(tx, { actor: admin, action: 'credits.prices', details: { before, after }, ip });
    return after;
  });
}
