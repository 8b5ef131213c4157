import { queryOptions, useQuery } from '@tanstack/react-query';
import type { SendResponse, StatusAudienceResponse, StatusSendBody } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { userDetailsKeys } from '../../auth/api/get-user-details.ts';

/** POST /api/session/{sessionId}/sendStatus: a Status post as a job. One `idempotencyKey` per click. */
export function postStatus(
  accountId: string,
  body: StatusSendBody,
  idempotencyKey: string,
): Promise<SendResponse> {
  return apiFetch<SendResponse>(`/api/session/${encodeURIComponent(accountId)}/sendStatus`, {
    method: 'POST',
    body,
    headers: { 'idempotency-key': idempotencyKey },
  });
}

/** GET /api/session/{sessionId}/status-audience: how many the account has messaged. */
export const statusAudienceQuery = (accountId: string) =>
  queryOptions({
    queryKey: ['status-audience', accountId],
    queryFn: () =>
      apiFetch<StatusAudienceResponse>(`/api/session/${encodeURIComponent(accountId)}/status-audience`),
  });

export const useStatusAudience = (accountId: string | null) =>
  useQuery({ ...statusAudienceQuery(accountId ?? ''), enabled: accountId !== null });

/** Posts a status; the balance (one credit per person) and the audience count are read again. */
export const usePostStatus = () =>
  useApiMutation(
    (v: { accountId: string; body: StatusSendBody; idempotencyKey: string }) =>
      postStatus(v.accountId, v.body, v.idempotencyKey),
    [userDetailsKeys.all, ['status-audience']],
  );
