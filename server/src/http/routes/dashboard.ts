import { DashboardQuery, DashboardResponse, ErrorResponse } from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { dashboard } from '../../messaging/jobs/dashboard.ts';
import { type App, requireUser } from '../types.ts';

export function registerDashboardRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/dashboard',
    {
      schema: {
        tags: ['dashboard'],
        summary: 'Dashboard figures: members of the session groups, sent, delivered, latest jobs',
        querystring: DashboardQuery,
        response: { 200: DashboardResponse, 401: ErrorResponse, 404: ErrorResponse },
      },
    },
    async (request) => dashboard(ctx, requireUser(request), request.query.sessionId),
  );
}
