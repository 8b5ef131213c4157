import { Readable } from 'node:stream';
import {
  ErrorResponse,
  JobDetailsQuery,
  JobDetailsResponse,
  JobIdParams,
  JobsQuery,
  JobsResponse,
  REPORT_CSV_FILE,
  ReportExportQuery,
  RetryBody,
  RetryResponse,
  SuccessMessage,
  UserIdPathParams,
} from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { deleteJob, pauseJob, resumeJob, retryJob } from '../../messaging/jobs/actions.ts';
import { jobDetails } from '../../messaging/jobs/details.ts';
import { exportReport } from '../../messaging/jobs/export.ts';
import { listJobs } from '../../messaging/jobs/list.ts';
import { JOB_MESSAGES } from '../../messaging/messages.ts';
import { cancelSeries } from '../../messaging/series/recurring.ts';
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
    '/api/message-jobs/:userId/export.csv',
    {
      schema: {
        tags: ['jobs'],
        summary: 'The MIS report as mis_report.csv (streamed), newest first',
        params: UserIdPathParams,
        querystring: ReportExportQuery,
      },
    },
    async (request, reply) => {
      const lines = await exportReport(ctx, requireUser(request), request.params.userId, request.query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${REPORT_CSV_FILE}"`)
        .send(Readable.from(lines));
    },
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
      retryJob(
        ctx,
        requireUser(request),
        request.params.jobId,
        request.body?.sessionId ?? undefined,
        request.body?.includeDeliveryUnknown ?? false,
      ),
  );

  app.post(
    '/api/message-jobs-details/:jobId/pause',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Pause a running or scheduled job (answers once the message in flight is recorded)',
        params: JobIdParams,
        response: { 200: SuccessMessage, ...errors },
      },
    },
    async (request) => {
      await pauseJob(ctx, requireUser(request), request.params.jobId);
      return { success: true, message: JOB_MESSAGES.paused };
    },
  );

  app.post(
    '/api/message-jobs-details/:jobId/cancel-series',
    {
      schema: {
        tags: ['jobs'],
        summary:
          "Stop a repeating job's series: its occurrence awaiting start is deleted, those that started go on",
        params: JobIdParams,
        response: { 200: SuccessMessage, ...errors },
      },
    },
    async (request) => cancelSeries(ctx, requireUser(request), request.params.jobId),
  );

  app.post(
    '/api/message-jobs-details/:jobId/resume',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Resume a paused job',
        params: JobIdParams,
        response: { 200: SuccessMessage, ...errors },
      },
    },
    async (request) => {
      await resumeJob(ctx, requireUser(request), request.params.jobId);
      return { success: true, message: JOB_MESSAGES.resumed };
    },
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
