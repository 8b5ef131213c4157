import { AccountIdParams, AutoRepliesBody, AutoRepliesResponse, ErrorResponse } from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { getAutoReplies, putAutoReplies } from '../../messaging/auto-reply/auto-reply.ts';
import { type App, requireUser } from '../types.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

/** An account's keyword auto-replies. */
export function registerAutoReplyRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/session/:sessionId/auto-replies',
    {
      schema: {
        tags: ['sessions'],
        summary: 'The account’s keyword auto-replies',
        params: AccountIdParams,
        response: { 200: AutoRepliesResponse, ...errors },
      },
    },
    async (request) => getAutoReplies(ctx, requireUser(request), request.params.sessionId),
  );
  app.put(
    '/api/session/:sessionId/auto-replies',
    {
      bodyLimit: 64 * 1024 * 1024,
      schema: {
        tags: ['sessions'],
        summary: 'Replace the account’s keyword auto-replies',
        params: AccountIdParams,
        body: AutoRepliesBody,
        response: { 200: AutoRepliesResponse, ...errors, 413: ErrorResponse },
      },
    },
    async (request) => putAutoReplies(ctx, requireUser(request), request.params.sessionId, request.body),
  );
}
