import {
  AccountIdParams,
  ErrorResponse,
  OutboxQuery,
  OutboxResponse,
  SimulatorInboundBody,
  SuccessMessage,
} from '@wa/contract';
import { simulatorAction, simulatorInbound, simulatorOutbox } from '../../accounts/simulator-orders.ts';
import type { AppContext } from '../../context.ts';
import { type App, requireUser } from '../types.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };

/** Controls of the simulated network; registered only with WA_PROVIDER=simulator. */
export function registerSimulatorRoutes(app: App, ctx: AppContext): void {
  for (const action of ['link', 'disconnect', 'logout'] as const) {
    app.post(
      `/api/simulator/sessions/:sessionId/${action}`,
      {
        schema: {
          tags: ['simulator'],
          params: AccountIdParams,
          response: { 200: SuccessMessage, ...errors },
        },
      },
      async (request) => simulatorAction(ctx, requireUser(request), request.params.sessionId, action),
    );
  }

  app.post(
    '/api/simulator/sessions/:sessionId/inbound',
    {
      schema: {
        tags: ['simulator'],
        params: AccountIdParams,
        body: SimulatorInboundBody,
        response: { 200: SuccessMessage, ...errors },
      },
    },
    async (request) => simulatorInbound(ctx, requireUser(request), request.params.sessionId, request.body),
  );

  app.get(
    '/api/simulator/sessions/:sessionId/outbox',
    {
      schema: {
        tags: ['simulator'],
        params: AccountIdParams,
        querystring: OutboxQuery,
        response: { 200: OutboxResponse, ...errors },
      },
    },
    async (request) =>
      simulatorOutbox(ctx, requireUser(request), request.params.sessionId, request.query.limit ?? 1000),
  );
}
