import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiKeysResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { apiKeyKeys, apiKeysPath } from './keys.ts';

/** GET /api/api-keys: the signed-in user's keys, newest first (never the keys themselves). */
export const apiKeysQuery = () =>
  queryOptions({
    queryKey: apiKeyKeys.all,
    queryFn: ({ signal }) => apiFetch<ApiKeysResponse>(apiKeysPath, { signal }),
    // 'Last used' changes when a script uses a key, not when this page acts: read it again.
    refetchInterval: 10_000,
  });
export const useApiKeys = () => useQuery(apiKeysQuery());
