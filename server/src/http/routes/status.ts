import {
  AccountIdParams,
  ErrorResponse,
  SendHeaders,
  SendResponse,
  StatusAudienceResponse,
  StatusSendBody,
} from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { acceptStatus, statusAudienceCount } from '../../messaging/status/accept.ts';
import { type App, requireUser } from '../types.ts';
import { idempotencyKey, SEND_BODY_LIMIT, SEND_ERRORS, SEND_ROUTE_CONFIG } from './send.ts';

/** Status posts: a job to an audience of contact lists or everyone the account has messaged. */
export function registerStatusRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/api/session/:sessionId/sendStatus',
    {
      bodyLimit: SEND_BODY_LIMIT,
      schema: {
        tags: ['messaging'],
        summary:
          'Post a Status (text, image or video) to contact lists or everyone messaged, now or scheduled',
        params: AccountIdParams,
        headers: SendHeaders,
        body: StatusSendBody,
        response: { 200: SendResponse, ...SEND_ERRORS, 429: ErrorResponse },
      },
      config: SEND_ROUTE_CONFIG,
    },
    async (request) =>
      acceptStatus(
        ctx,
        requireUser(request),
        request.params.sessionId,
        request.body,
        idempotencyKey(request),
      ),
  );
  app.get(
    '/api/session/:sessionId/status-audience',
    {
      schema: {
        tags: ['messaging'],
        summary: 'How many people this account has messaged (the Status audience "everyone messaged")',
        params: AccountIdParams,
        response: { 200: StatusAudienceResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse },
      },
    },
    async (request) => ({
      everyoneMessaged: await statusAudienceCount(ctx, requireUser(request), request.params.sessionId),
    }),
  );
}
