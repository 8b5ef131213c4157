import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CostEstimateResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';

export type CostEstimateInput = { templateName: string; language: string; recipients: number };

export const costEstimateKeys = {
  all: ['cloudCostEstimate'] as const,
  one: (accountId: string | null, input: CostEstimateInput | null) =>
    ['cloudCostEstimate', accountId, input] as const,
};

/** POST /api/session/{sessionId}/cost-estimate: Meta's charge for a template send, and the tier's split. */
export const getCostEstimate = (accountId: string, input: CostEstimateInput, signal?: AbortSignal) =>
  apiFetch<CostEstimateResponse>(`/api/session/${encodeURIComponent(accountId)}/cost-estimate`, {
    method: 'POST',
    body: input,
    signal,
  });

export const costEstimateQuery = (accountId: string | null, input: CostEstimateInput | null) =>
  queryOptions({
    queryKey: costEstimateKeys.one(accountId, input),
    queryFn: ({ signal }) => getCostEstimate(accountId!, input!, signal),
    enabled: !!accountId && !!input && input.recipients > 0,
  });

export const useCostEstimate = (accountId: string | null, input: CostEstimateInput | null) =>
  useQuery(costEstimateQuery(accountId, input));
