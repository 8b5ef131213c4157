import {
  CreateInstanceBody,
  CreateInstanceResponse,
  ErrorResponse,
  PairingCodeBody,
  PairingCodeResponse,
  QrQuery,
  RestartResponse,
  SessionHealthResponse,
  SessionIdParams,
  SessionsResponse,
  StatusResponse,
  SuccessMessage,
} from '@wa/contract';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { getSessionHealth } from '../../sessions/health/service.ts';
import {
  createInstance,
  listSessions,
  pairingCode,
  qrImage,
  restartSession,
  resumeSending,
  sessionStatus,
  terminateSession,
} from '../../sessions/service.ts';
import { type App, requireUser } from '../types.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse };

export function registerSessionRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/sessions',
    { schema: { tags: ['sessions'], response: { 200: SessionsResponse, 401: ErrorResponse } } },
    async (request) => ({ success: true as const, sessions: await listSessions(ctx, requireUser(request)) }),
  );

  app.post(
    '/api/create-instance',
    {
      schema: {
        tags: ['sessions'],
        body: CreateInstanceBody,
        response: { 200: CreateInstanceResponse, ...errors, 409: ErrorResponse },
      },
    },
    async (request) => {
      const { sessionId } = await createInstance(ctx, requireUser(request), request.body);
      return {
        success: true as const,
        message: 'Instance created successfully. Scan the QR code to connect.',
        sessionId,
      };
    },
  );

  app.get(
    '/api/:sessionId/status',
    { schema: { tags: ['sessions'], params: SessionIdParams, response: { 200: StatusResponse, ...errors } } },
    async (request) => sessionStatus(ctx, requireUser(request), request.params.sessionId),
  );

  app.get(
    '/api/:sessionId/QR',
    {
      schema: {
        tags: ['sessions'],
        description: 'The current QR code as image/png (404 while there is none).',
        params: SessionIdParams,
        querystring: QrQuery,
        response: { 200: z.instanceof(Buffer).describe('image/png'), ...errors },
      },
    },
    async (request, reply) => {
      const png = await qrImage(ctx, requireUser(request), request.params.sessionId);
      return reply.type('image/png').header('cache-control', 'no-store').send(png);
    },
  );

  app.post(
    '/api/session/:sessionId/pairing-code',
    {
      schema: {
        tags: ['sessions'],
        description:
          "Link by phone number: the code to enter on the session's phone (WhatsApp → Linked devices → Link with phone number). 409 when the account is already linked.",
        params: SessionIdParams,
        body: PairingCodeBody,
        response: { 200: PairingCodeResponse, ...errors, 409: ErrorResponse },
      },
    },
    async (request) =>
      pairingCode(ctx, requireUser(request), request.params.sessionId, { renew: !!request.body?.renew }),
  );

  app.post(
    '/api/session/:sessionId/restart',
    {
      schema: { tags: ['sessions'], params: SessionIdParams, response: { 200: RestartResponse, ...errors } },
    },
    async (request) => restartSession(ctx, requireUser(request), request.params.sessionId),
  );

  app.post(
    '/api/session/:sessionId/terminate',
    { schema: { tags: ['sessions'], params: SessionIdParams, response: { 200: SuccessMessage, ...errors } } },
    async (request) => terminateSession(ctx, requireUser(request), request.params.sessionId),
  );

  app.post(
    '/api/session/:sessionId/resume',
    {
      schema: {
        tags: ['sessions'],
        description: "Lifts a pause set by WhatsApp's limits (error 463 or the quota).",
        params: SessionIdParams,
        response: { 200: SuccessMessage, ...errors },
      },
    },
    async (request) => resumeSending(ctx, requireUser(request), request.params.sessionId),
  );

  app.get(
    '/api/session/:sessionId/health',
    {
      schema: {
        tags: ['sessions'],
        description:
          "The account's health score (0-100) over the last day, its signals, and whether the breaker slows or pauses it.",
        params: SessionIdParams,
        response: { 200: SessionHealthResponse, ...errors },
      },
    },
    async (request) => getSessionHealth(ctx, requireUser(request), request.params.sessionId),
  );
}
