import {
  ErrorResponse,
  InboxCountsResponse,
  InboxListResponse,
  InboxMediaParams,
  InboxPersonParams,
  InboxQuery,
  InboxReplyBody,
  InboxReplyResponse,
  InboxStateBody,
  InboxStateResponse,
  InboxThreadQuery,
  InboxThreadResponse,
  SendHeaders,
} from '@wa/contract';
import type { AppContext } from '../../context.ts';
import {
  inboxCounts,
  listInbox,
  openThread,
  replyInThread,
  setThreadState,
  threadMedia,
} from '../../messaging/inbox/service.ts';
import { type App, requireUser } from '../types.ts';
import { idempotencyKey, SEND_BODY_LIMIT, SEND_ERRORS, SEND_ROUTE_CONFIG } from './send.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse };

/**
 * The Inbox: what people wrote to the user's accounts, one thread per person. An admin reads a
 * managed user's with `?userId=` (read-only).
 */
export function registerInboxRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/inbox',
    {
      schema: {
        tags: ['inbox'],
        summary:
          'Threads, newest first: by account, job replied to, unread/open/done, needing a reply, opted out, name or number',
        querystring: InboxQuery,
        response: { 200: InboxListResponse, ...errors },
      },
    },
    async (request) => listInbox(ctx, requireUser(request), request.query),
  );

  app.get(
    '/api/inbox/counts',
    {
      schema: {
        tags: ['inbox'],
        summary: 'How many threads have messages not opened yet',
        querystring: InboxThreadQuery,
        response: { 200: InboxCountsResponse, ...errors },
      },
    },
    async (request) => inboxCounts(ctx, requireUser(request), request.query.userId),
  );

  app.get(
    '/api/inbox/:personId',
    {
      schema: {
        tags: ['inbox'],
        summary: 'A thread with its messages both ways (opening your own marks it read)',
        params: InboxPersonParams,
        querystring: InboxThreadQuery,
        response: { 200: InboxThreadResponse, ...errors },
      },
    },
    async (request) => openThread(ctx, requireUser(request), request.params.personId, request.query.userId),
  );

  app.get(
    '/api/inbox/:personId/media/:messageId',
    {
      schema: {
        tags: ['inbox'],
        summary: 'A file the person sent, fetched again from WhatsApp',
        params: InboxMediaParams,
        querystring: InboxThreadQuery,
        response: { ...errors, 503: ErrorResponse },
      },
    },
    async (request, reply) => {
      const { personId, messageId } = request.params;
      const file = await threadMedia(ctx, requireUser(request), personId, messageId, request.query.userId);
      const name = (file.fileName ?? `media-${messageId}`).replace(/["\\\r\n]/g, '_');
      return (
        reply
          .type(file.mime)
          .header('cache-control', 'private, no-store')
          .header('x-content-type-options', 'nosniff')
          .header('content-disposition', `attachment; filename="${name}"`)
          // Bytes are sent as they are (the response schema describes the errors only).
          .send(file.body as never)
      );
    },
  );

  app.post(
    '/api/inbox/:personId/reply',
    {
      bodyLimit: SEND_BODY_LIMIT,
      schema: {
        tags: ['inbox'],
        summary:
          'Answer the person through one of your accounts (a job of its own, charged like any message)',
        params: InboxPersonParams,
        headers: SendHeaders,
        body: InboxReplyBody,
        response: { 200: InboxReplyResponse, ...SEND_ERRORS, 429: ErrorResponse },
      },
      config: SEND_ROUTE_CONFIG,
    },
    async (request) =>
      replyInThread(
        ctx,
        requireUser(request),
        request.params.personId,
        request.body,
        idempotencyKey(request),
      ),
  );

  app.post(
    '/api/inbox/:personId/state',
    {
      schema: {
        tags: ['inbox'],
        summary: 'Mark a thread done, or open it again',
        params: InboxPersonParams,
        body: InboxStateBody,
        response: { 200: InboxStateResponse, ...errors },
      },
    },
    async (request) => setThreadState(ctx, requireUser(request), request.params.personId, request.body.state),
  );
}
