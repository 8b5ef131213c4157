import type { SendBody, SendResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';

/**
 * POST /api/session/{sessionId}/sendBulkMessage (groups) or /sendIndividualMessage (phone
 * numbers as digits; the server adds the contact suffix). One `idempotencyKey` per click.
 */
export function sendMessage(
  accountId: string,
  audience: 'groups' | 'individuals',
  body: SendBody,
  idempotencyKey: string,
): Promise<SendResponse> {
  const action = audience === 'groups' ? 'sendBulkMessage' : 'sendIndividualMessage';
  return apiFetch<SendResponse>(`/api/session/${encodeURIComponent(accountId)}/${action}`, {
    method: 'POST',
    body,
    headers: { 'idempotency-key': idempotencyKey },
  });
}
