import { z } from 'zod';

/**
 * Credits per recipient for each kind of account ("Credits stay 1 per recipient (an
 * admin may set a different credit price per kind of account)"). Whole numbers, at least 1.
 */
export const CREDIT_PRICE_MAX = 1000;

const price = z
  .number({ error: 'The price must be a whole number of credits' })
  .int('The price must be a whole number of credits')
  .min(1, 'The price must be at least 1 credit')
  .max(CREDIT_PRICE_MAX, `The price must be at most ${CREDIT_PRICE_MAX} credits`);

export const CreditPrices = z.object({ linked: price, cloud: price });
export type CreditPrices = z.infer<typeof CreditPrices>;

/** What a recipient costs when no admin has set a price. */
export const DEFAULT_CREDIT_PRICES: CreditPrices = { linked: 1, cloud: 1 };

export const CreditPricesResponse = z.object({ success: z.literal(true), prices: CreditPrices });
export type CreditPricesResponse = z.infer<typeof CreditPricesResponse>;

/** PUT /api/admin/credit-prices: one kind or both. */
export const CreditPricesBody = z
  .object({ linked: price.optional(), cloud: price.optional() })
  .refine(
    (b) => b.linked !== undefined || b.cloud !== undefined,
    'Give the price of linked phones, of Cloud API accounts, or both',
  );
export type CreditPricesBody = z.infer<typeof CreditPricesBody>;

/** What `counts` recipients of each kind cost at `prices`. */
export function creditsFor(counts: { linked: number; cloud: number }, prices: CreditPrices): number {
  return counts.linked * prices.linked + counts.cloud * prices.cloud;
}

/**
 * POST /api/session/:sessionId/send-estimate: the split a send (the body of
 * sendIndividualMessage) would have over linked phones and Cloud API accounts, its credits, and
 * Meta's charge for the Cloud share of a template (ten-thousandths of a rupee; null otherwise).
 * Opted-out numbers are not left out here: the send itself leaves them out and does not charge them.
 */
export const SendEstimateResponse = z.object({
  success: z.literal(true),
  recipients: z.number().int(),
  viaPhones: z.number().int(),
  viaCloud: z.number().int(),
  credits: z.number().int(),
  metaCostUnits: z.number().int().nullable(),
});
export type SendEstimateResponse = z.infer<typeof SendEstimateResponse>;
