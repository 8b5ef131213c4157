import { queryOptions, useQuery } from '@tanstack/react-query';
import { type CreditPrices, type CreditPricesResponse, DEFAULT_CREDIT_PRICES } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';

/** GET /api/credit-prices: credits per recipient of a linked phone and of a Cloud API account. */
export const creditPricesQuery = () =>
  queryOptions({
    queryKey: ['credit-prices'] as const,
    queryFn: ({ signal }) => apiFetch<CreditPricesResponse>('/api/credit-prices', { signal }),
    select: (r) => r.prices,
  });

/** The prices; 1 each until they are read (what the server charges when no admin set one). */
export function useCreditPrices(): CreditPrices {
  return useQuery(creditPricesQuery()).data ?? DEFAULT_CREDIT_PRICES;
}
