import {
  AccountHealthResponse,
  AccountIdParams,
  AccountsResponse,
  CreateAccountBody,
  CreateAccountResponse,
  ErrorResponse,
  PairingCodeBody,
  PairingCodeResponse,
  QrQuery,
  RestartResponse,
  StatusResponse,
  SuccessMessage,
} from '@wa/contract';
import { z } from 'zod';
import { getAccountHealth } from '../../accounts/health/service.ts';
import {
  accountStatus,
  createAccount,
  listAccounts,
  pairingCode,
  qrImage,
  restartAccount,
  resumeSending,
  terminateAccount,
} from '../../accounts/service.ts';
import type { AppContext } from '../../context.ts';
import { type App, requireUser } from '../types.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse };

export function registerAccountRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/sessions',
    { schema: { tags: ['sessions'], response: { 200: AccountsResponse, 401: ErrorResponse } } },
    async (request) => ({ success: true as const, sessions: await listAccounts(ctx, requireUser(request)) }),
  );

  app.post(
    '/api/create-instance',
    {
      schema: {
        tags: ['sessions'],
        body: CreateAccountBody,
        response: { 200: CreateAccountResponse, ...errors, 409: ErrorResponse },
      },
    },
    async (request) => {
      const { accountId } = await createAccount(ctx, requireUser(request), request.body);
      return {
        success: true as const,
        message: 'Instance created successfully. Scan the QR code to connect.',
        sessionId: accountId,
      };
    },
  );

  app.get(
    '/api/:sessionId/status',
    { schema: { tags: ['sessions'], params: AccountIdParams, response: { 200: StatusResponse, ...errors } } },
    async (request) => accountStatus(ctx, requireUser(request), request.params.sessionId),
  );

  app.get(
    '/api/:sessionId/QR',
    {
      schema: {
        tags: ['sessions'],
        description: 'The current QR code as image/png (404 while there is none).',
        params: AccountIdParams,
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
        params: AccountIdParams,
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
      schema: { tags: ['sessions'], params: AccountIdParams, response: { 200: RestartResponse, ...errors } },
    },
    async (request) => restartAccount(ctx, requireUser(request), request.params.sessionId),
  );

  app.post(
    '/api/session/:sessionId/terminate',
    { schema: { tags: ['sessions'], params: AccountIdParams, response: { 200: SuccessMessage, ...errors } } },
    async (request) => terminateAccount(ctx, requireUser(request), request.params.sessionId),
  );

  app.post(
    '/api/session/:sessionId/resume',
    {
      schema: {
        tags: ['sessions'],
        description: "Lifts a pause set by WhatsApp's limits (error 463 or the quota).",
        params: AccountIdParams,
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
        params: AccountIdParams,
        response: { 200: AccountHealthResponse, ...errors },
      },
    },
    async (request) => getAccountHealth(ctx, requireUser(request), request.params.sessionId),
  );
}
