import {
  AccountIdParams,
  ErrorResponse,
  MAX_MEDIA_BYTES,
  SendBody,
  SendEstimateResponse,
  SendHeaders,
  SendResponse,
} from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { estimateSend } from '../../messaging/accept/estimate.ts';
import { acceptSend } from '../../messaging/accept/send.ts';
import type { Audience } from '../../messaging/compose.ts';
import { type App, requireUser } from '../types.ts';

/**
 * Room for a 16 MB file in base64 (4/3 of it) plus the rest of the payload, so that a file just
 * over the limit gets the product's own message rather than the generic body-size refusal.
 */
export const SEND_BODY_LIMIT = Math.ceil((MAX_MEDIA_BYTES * 4) / 3) + 8 * 1024 * 1024;

/** The error answers of a send route (texts, files, polls, Status). */
export const SEND_ERRORS = {
  400: ErrorResponse,
  401: ErrorResponse,
  402: ErrorResponse,
  403: ErrorResponse,
  404: ErrorResponse,
  409: ErrorResponse,
  413: ErrorResponse,
};

/** `Idempotency-Key`: a repeat of the same request within 24 hours answers the first job. */
export const idempotencyKey = (request: { headers: { 'idempotency-key'?: string } }) =>
  request.headers['idempotency-key'];

/**
 * Sends per user per minute, one allowance for every send route (texts, files, polls, groups,
 * Status; refused ones count) on every node: checked before the body is read (http/user-limit.ts).
 */
export const SEND_ROUTE_CONFIG = { userLimit: { name: 'send', max: 120, windowMs: 60_000 } };

/**
 * Send estimates per user per minute: the estimate parses and routes a send's recipients as the
 * send does, so it is bounded as one, in an allowance of its own (the page asks one before each send).
 */
export const ESTIMATE_ROUTE_CONFIG = { userLimit: { name: 'send-estimate', max: 120, windowMs: 60_000 } };

const ROUTES: Array<{ path: string; audience: Audience; summary: string }> = [
  { path: 'sendBulkMessage', audience: 'groups', summary: 'Send to groups (now or scheduled)' },
  {
    path: 'sendIndividualMessage',
    audience: 'individuals',
    summary: 'Send to phone numbers (now or scheduled); needs bulk messaging enabled',
  },
];

export function registerSendRoutes(app: App, ctx: AppContext): void {
  for (const route of ROUTES)
    app.post(
      `/api/session/:sessionId/${route.path}`,
      {
        bodyLimit: SEND_BODY_LIMIT,
        schema: {
          tags: ['messaging'],
          summary: route.summary,
          params: AccountIdParams,
          headers: SendHeaders,
          body: SendBody,
          response: { 200: SendResponse, ...SEND_ERRORS, 429: ErrorResponse },
        },
        config: SEND_ROUTE_CONFIG,
      },
      async (request) =>
        acceptSend(
          ctx,
          requireUser(request),
          request.params.sessionId,
          request.body,
          route.audience,
          idempotencyKey(request),
        ),
    );

  app.post(
    '/api/session/:sessionId/send-estimate',
    {
      bodyLimit: SEND_BODY_LIMIT,
      schema: {
        tags: ['messaging'],
        summary:
          'What a send to phone numbers would do: its split over linked phones and Cloud API, credits, Meta’s charge',
        params: AccountIdParams,
        body: SendBody,
        response: { 200: SendEstimateResponse, ...SEND_ERRORS, 429: ErrorResponse },
      },
      config: ESTIMATE_ROUTE_CONFIG,
    },
    async (request) => estimateSend(ctx, requireUser(request), request.params.sessionId, request.body),
  );
}
