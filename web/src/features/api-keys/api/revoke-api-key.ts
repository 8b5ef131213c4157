import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { apiKeyKeys, apiKeysPath } from './keys.ts';

/** DELETE /api/api-keys/:id: the key stops working at once. */
export const revokeApiKey = (id: string) =>
  apiFetch<{ success: boolean; message: string }>(`${apiKeysPath}/${encodeURIComponent(id)}`, {
    method: 'DELETE',
  });
export const useRevokeApiKey = () => useApiMutation(revokeApiKey, [apiKeyKeys.all]);
