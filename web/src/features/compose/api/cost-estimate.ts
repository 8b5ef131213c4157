import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CostEstimateResponse } from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';

export type CostEstimateInput = { templateName: string; language: string; recipients: number };

export const costEstimateKeys = {
  all: ['cloudCostEstimate'] as const,
  one: (sessionId: string | null, input: CostEstimateInput | null) =>
    ['cloudCostEstimate', sessionId, input] as const,
};

/** POST /api/session/{sessionId}/cost-estimate: Meta's charge for a template send, and the tier's split. */
export const getCostEstimate = (sessionId: string, input: CostEstimateInput, signal?: AbortSignal) =>
  apiFetch<CostEstimateResponse>(`/api/session/${encodeURIComponent(sessionId)}/cost-estimate`, {
    method: 'POST',
    body: input,
    signal,
  });

export const costEstimateQuery = (sessionId: string | null, input: CostEstimateInput | null) =>
  queryOptions({
    queryKey: costEstimateKeys.one(sessionId, input),
    queryFn: ({ signal }) => getCostEstimate(sessionId!, input!, signal),
    enabled: !!sessionId && !!input && input.recipients > 0,
  });

export const useCostEstimate = (sessionId: string | null, input: CostEstimateInput | null) =>
  useQuery(costEstimateQuery(sessionId, input));
