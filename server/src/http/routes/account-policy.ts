import { AccountIdParams, AccountPolicy, AccountPolicyResponse, ErrorResponse } from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { getAccountPolicy, putAccountPolicy } from '../../messaging/limits/service.ts';
import { type App, requireUser } from '../types.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

/** An account's sending policy: daily limit, warm-up, quiet hours, pause range, typing. */
export function registerAccountPolicyRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/session/:sessionId/policy',
    {
      schema: {
        tags: ['sessions'],
        summary: "The account's sending policy and today's count against its limit",
        params: AccountIdParams,
        response: { 200: AccountPolicyResponse, ...errors },
      },
    },
    async (request) => getAccountPolicy(ctx, requireUser(request), request.params.sessionId),
  );

  app.put(
    '/api/session/:sessionId/policy',
    {
      schema: {
        tags: ['sessions'],
        summary: "Replace the account's sending policy",
        params: AccountIdParams,
        body: AccountPolicy,
        response: { 200: AccountPolicyResponse, ...errors },
      },
    },
    async (request) => putAccountPolicy(ctx, requireUser(request), request.params.sessionId, request.body),
  );
}
