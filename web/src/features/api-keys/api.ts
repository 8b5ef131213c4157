import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiKeysResponse, CreateApiKeyResponse } from '@wa/contract';
import { apiFetch } from '../../lib/api.ts';
import { useApiMutation } from '../../lib/mutation.ts';

const base = '/api/api-keys';

export const apiKeyKeys = { all: ['api-keys'] as const };

/** GET /api/api-keys: the signed-in user's keys, newest first (never the keys themselves). */
export const apiKeysQuery = () =>
  queryOptions({
    queryKey: apiKeyKeys.all,
    queryFn: ({ signal }) => apiFetch<ApiKeysResponse>(base, { signal }),
  });
export const useApiKeys = () => useQuery(apiKeysQuery());

/** POST /api/api-keys: the answer holds the whole key, the only time it is shown. */
export const createApiKey = (name: string) =>
  apiFetch<CreateApiKeyResponse>(base, { method: 'POST', body: { name } });
export const useCreateApiKey = () => useApiMutation(createApiKey, [apiKeyKeys.all]);

/** DELETE /api/api-keys/:id: the key stops working at once. */
export const revokeApiKey = (id: string) =>
  apiFetch<{ success: boolean; message: string }>(`${base}/${encodeURIComponent(id)}`, { method: 'DELETE' });
export const useRevokeApiKey = () => useApiMutation(revokeApiKey, [apiKeyKeys.all]);
