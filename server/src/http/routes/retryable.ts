import { ErrorResponse, RetryableQuery, RetryableResponse, UserIdPathParams } from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { retryableFailures } from '../../messaging/jobs/retryable-failures.ts';
import { type App, requireUser } from '../types.ts';

/** Whether a retry may fix a job's failures: the Jobs page offers Retry Failed by it. */
export function registerRetryableRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/message-jobs/:userId/retryable',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Of the given jobs, how many failed recipients a retry may fix',
        params: UserIdPathParams,
        querystring: RetryableQuery,
        response: { 200: RetryableResponse, 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse },
      },
    },
    async (request) =>
      retryableFailures(ctx, requireUser(request), request.params.userId, request.query.jobIds),
  );
}
