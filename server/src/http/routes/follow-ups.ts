import {
  ErrorResponse,
  FollowUpBody,
  FollowUpParams,
  FollowUpResponse,
  JobIdParams,
  SegmentListBody,
  SegmentListResponse,
  SegmentParams,
  SegmentsResponse,
  SendHeaders,
  SuccessMessage,
} from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { followUp, jobSegments, saveSegmentAsList } from '../../messaging/follow-up/follow-up.ts';
import { cancelFollowUp } from '../../messaging/follow-up/scheduled.ts';
import { type App, requireUser } from '../types.ts';
import { idempotencyKey, SEND_BODY_LIMIT, SEND_ERRORS, SEND_ROUTE_CONFIG } from './send.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };

/**
 * Follow-ups from a job's outcomes: its segments, a new job for one of them (now or later), a
 * scheduled one cancelled, a segment as a list.
 */
export function registerFollowUpRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/message-jobs/:jobId/segments',
    {
      schema: {
        tags: ['jobs'],
        summary: 'How many of a one-to-one job’s recipients are in each follow-up segment',
        params: JobIdParams,
        response: { 200: SegmentsResponse, ...errors },
      },
    },
    async (request) => jobSegments(ctx, requireUser(request), request.params.jobId),
  );

  app.post(
    '/api/message-jobs/:jobId/follow-up',
    {
      bodyLimit: SEND_BODY_LIMIT,
      schema: {
        tags: ['jobs'],
        summary:
          'Send a new job to a segment of a job’s recipients (now, or scheduled: the segment as it stands then)',
        params: JobIdParams,
        headers: SendHeaders,
        body: FollowUpBody,
        response: { 200: FollowUpResponse, ...SEND_ERRORS, 429: ErrorResponse },
      },
      config: SEND_ROUTE_CONFIG,
    },
    async (request) =>
      followUp(ctx, requireUser(request), request.params.jobId, request.body, idempotencyKey(request)),
  );

  app.post(
    '/api/message-jobs/:jobId/follow-ups/:followUpId/cancel',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Cancel a scheduled follow-up of a job while it waits for its time',
        params: FollowUpParams,
        response: { 200: SuccessMessage, ...errors },
      },
    },
    async (request) =>
      cancelFollowUp(ctx, requireUser(request), request.params.jobId, request.params.followUpId),
  );

  app.post(
    '/api/message-jobs/:jobId/segments/:segment/contact-list',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Save a segment of a job’s recipients as a new contact list',
        params: SegmentParams,
        body: SegmentListBody,
        response: { 200: SegmentListResponse, ...errors },
      },
    },
    async (request) =>
      saveSegmentAsList(
        ctx,
        requireUser(request),
        request.params.jobId,
        request.params.segment,
        request.body.name,
      ),
  );
}
