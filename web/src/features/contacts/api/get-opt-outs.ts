import { queryOptions, useQuery } from '@tanstack/react-query';
import type { OptOutsResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { optOutKeys } from './keys.ts';

/** GET /api/opt-outs: the numbers the user no longer messages, newest first. */
export const optOutsQuery = () =>
  queryOptions({
    queryKey: optOutKeys.all,
    queryFn: ({ signal }) => apiFetch<OptOutsResponse>('/api/opt-outs', { signal }),
  });
export const useOptOuts = () => useQuery(optOutsQuery());
