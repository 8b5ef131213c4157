import type { CreateApiKeyBody, CreateApiKeyResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { apiKeyKeys, apiKeysPath } from './keys.ts';

/**
 * POST /api/api-keys, with the password again (and the two-factor code when it is on): the
 * answer holds the whole key, the only time it is shown.
 */
export const createApiKey = (body: CreateApiKeyBody) =>
  apiFetch<CreateApiKeyResponse>(apiKeysPath, { method: 'POST', body });
export const useCreateApiKey = () => useApiMutation(createApiKey, [apiKeyKeys.all]);
