import { EditJobBody, EditJobResponse, ErrorResponse, JobIdParams, SuccessMessage } from '@wa/contract';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { editJob } from '../../messaging/jobs/edit.ts';
import { rescheduleJob } from '../../messaging/jobs/reschedule.ts';
import { type App, requireUser } from '../types.ts';

export function registerJobEditRoutes(app: App, ctx: AppContext): void {
  app.patch(
    '/api/message-jobs-details/:jobId',
    {
      schema: {
        tags: ['jobs'],
        summary:
          'Move a scheduled job that has not started to another time, or edit its time, text, file, poll and recipients (credits follow)',
        params: JobIdParams,
        body: EditJobBody,
        response: {
          200: z.union([EditJobResponse, SuccessMessage]),
          400: ErrorResponse,
          401: ErrorResponse,
          404: ErrorResponse,
          402: ErrorResponse,
          409: ErrorResponse,
        },
      },
    },
    async (request) => {
      const { scheduleTime, ...rest } = request.body;
      // A time alone moves the job (its answer says where to); anything more edits it.
      if (scheduleTime !== undefined && Object.values(rest).every((v) => v === undefined))
        return rescheduleJob(ctx, requireUser(request), request.params.jobId, { scheduleTime });
      return editJob(ctx, requireUser(request), request.params.jobId, request.body);
    },
  );
}
