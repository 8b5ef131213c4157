import {
  ErrorResponse,
  MAX_MEDIA_BYTES,
  SendBody,
  SendHeaders,
  SendResponse,
  SessionIdParams,
} from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { acceptSend } from '../../messaging/service.ts';
import { type App, requireUser } from '../types.ts';

/**
 * Room for a 16 MB file in base64 (4/3 of it) plus the rest of the payload, so that a file just
 * over the limit gets the product's own message rather than the generic body-size refusal.
 */
export const SEND_BODY_LIMIT = Math.ceil((MAX_MEDIA_BYTES * 4) / 3) + 8 * 1024 * 1024;

const errors = {
  400: ErrorResponse,
  401: ErrorResponse,
  402: ErrorResponse,
  403: ErrorResponse,
  404: ErrorResponse,
  409: ErrorResponse,
  413: ErrorResponse,
};

/** `Idempotency-Key`: a repeat of the same request within 24 hours answers the first job. */
const idempotencyKey = (request: { headers: { 'idempotency-key'?: string } }) =>
  request.headers['idempotency-key'];

export function registerSendRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/api/session/:sessionId/sendBulkMessage',
    {
      bodyLimit: SEND_BODY_LIMIT,
      schema: {
        tags: ['messaging'],
        summary: 'Send to groups (now or scheduled)',
        params: SessionIdParams,
        headers: SendHeaders,
        body: SendBody,
        response: { 200: SendResponse, ...errors },
      },
    },
    async (request) =>
      acceptSend(
        ctx,
        requireUser(request),
        request.params.sessionId,
        request.body,
        'groups',
        idempotencyKey(request),
      ),
  );

  app.post(
    '/api/session/:sessionId/sendIndividualMessage',
    {
      bodyLimit: SEND_BODY_LIMIT,
      schema: {
        tags: ['messaging'],
        summary: 'Send to phone numbers (now or scheduled); needs bulk messaging enabled',
        params: SessionIdParams,
        headers: SendHeaders,
        body: SendBody,
        response: { 200: SendResponse, ...errors },
      },
    },
    async (request) =>
      acceptSend(
        ctx,
        requireUser(request),
        request.params.sessionId,
        request.body,
        'individuals',
        idempotencyKey(request),
      ),
  );
}
