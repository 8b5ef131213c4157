import {
  ErrorResponse,
  JobDetailsQuery,
  JobDetailsResponse,
  JobIdParams,
  JobsQuery,
  JobsResponse,
  RetryBody,
  RetryResponse,
  SuccessMessage,
  UserIdPathParams,
} from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { deleteJob, jobDetails, listJobs, retryJob } from '../../messaging/service.ts';
import { type App, requireUser } from '../types.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

/** Message jobs: the owner reads and changes them; an ADMIN reads those of the users it manages. */
export function registerJobRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/message-jobs/:userId',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Jobs of a user, newest first',
        params: UserIdPathParams,
        querystring: JobsQuery,
        response: { 200: JobsResponse, ...errors },
      },
    },
    async (request) => listJobs(ctx, requireUser(request), request.params.userId, request.query),
  );

  app.get(
    '/api/message-jobs-details/:jobId',
    {
      schema: {
        tags: ['jobs'],
        summary: 'One job with its recipients (paged) and media',
        params: JobIdParams,
        querystring: JobDetailsQuery,
        response: { 200: JobDetailsResponse, ...errors },
      },
    },
    async (request) => jobDetails(ctx, requireUser(request), request.params.jobId, request.query),
  );

  app.post(
    '/api/message-jobs-details/:jobId/retry',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Queue the failed recipients again (charges them again)',
        params: JobIdParams,
        body: RetryBody.optional(),
        response: { 200: RetryResponse, ...errors, 402: ErrorResponse },
      },
    },
    async (request) =>
      retryJob(ctx, requireUser(request), request.params.jobId, request.body?.sessionId ?? undefined),
  );

  app.delete(
    '/api/message-jobs-details/:jobId',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Cancel what is unsent (refunded) and delete the job',
        params: JobIdParams,
        response: { 200: SuccessMessage, ...errors },
      },
    },
    async (request) => {
      await deleteJob(ctx, requireUser(request), request.params.jobId);
      return { success: true, message: 'Job deleted successfully' };
    },
  );
}
