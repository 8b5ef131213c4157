import type { ProxyTestResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';

/** POST /api/session/{sessionId}/proxy/test { url? }: reaches WhatsApp through it, and its exit address. */
export const testProxy = (v: { accountId: string; url?: string }) =>
  apiFetch<ProxyTestResponse>(`/api/session/${encodeURIComponent(v.accountId)}/proxy/test`, {
    method: 'POST',
    body: v.url ? { url: v.url } : {},
  });
export const useTestProxy = () => useApiMutation(testProxy, []);
