import { ErrorResponse, SessionIdParams, SessionPolicy, SessionPolicyResponse } from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { getSessionPolicy, putSessionPolicy } from '../../messaging/limits/service.ts';
import { type App, requireUser } from '../types.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

/** An account's sending policy: daily limit, warm-up, quiet hours, pause range, typing. */
export function registerSessionPolicyRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/session/:sessionId/policy',
    {
      schema: {
        tags: ['sessions'],
        summary: "The account's sending policy and today's count against its limit",
        params: SessionIdParams,
        response: { 200: SessionPolicyResponse, ...errors },
      },
    },
    async (request) => getSessionPolicy(ctx, requireUser(request), request.params.sessionId),
  );

  app.put(
    '/api/session/:sessionId/policy',
    {
      schema: {
        tags: ['sessions'],
        summary: "Replace the account's sending policy",
        params: SessionIdParams,
        body: SessionPolicy,
        response: { 200: SessionPolicyResponse, ...errors },
      },
    },
    async (request) => putSessionPolicy(ctx, requireUser(request), request.params.sessionId, request.body),
  );
}
