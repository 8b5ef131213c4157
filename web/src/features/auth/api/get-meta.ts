import { queryOptions, useQuery } from '@tanstack/react-query';
import type { MetaResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';

export const metaKeys = { all: ['meta'] as const };

/** GET /api/meta (public): network provider, sign-up switch, default country code. */
export const metaQuery = () =>
  queryOptions({
    queryKey: metaKeys.all,
    queryFn: () => apiFetch<MetaResponse>('/api/meta'),
    staleTime: Number.POSITIVE_INFINITY,
  });

export const useMeta = () => useQuery(metaQuery());
