import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CreditPricesBody, CreditPricesResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';

/** The key of the prices; the compose pages read the same endpoint under their own key. */
const creditPricesKey = ['admin', 'credit-prices'] as const;

/** GET /api/credit-prices: credits per recipient of a linked phone and of a Cloud API account. */
export const adminCreditPricesQuery = () =>
  queryOptions({
    queryKey: creditPricesKey,
    queryFn: ({ signal }) => apiFetch<CreditPricesResponse>('/api/credit-prices', { signal }),
  });
export const useAdminCreditPrices = () => useQuery(adminCreditPricesQuery());

/** PUT /api/admin/credit-prices. */
export const setCreditPrices = (body: CreditPricesBody) =>
  apiFetch<CreditPricesResponse>('/api/admin/credit-prices', { method: 'PUT', body });
export const useSetCreditPrices = () => useApiMutation(setCreditPrices, [creditPricesKey]);
