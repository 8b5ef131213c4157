import {
  AccountIdParams,
  CloudPricesBody,
  CloudPricesResponse,
  CostEstimateBody,
  CostEstimateResponse,
  CreateCloudAccountBody,
  CreateCloudAccountResponse,
  ErrorResponse,
  TemplatesResponse,
} from '@wa/contract';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { createCloudAccount, listCloudTemplates } from '../../accounts/cloud/service.ts';
import type { AppContext } from '../../context.ts';
import { cloudPriceList, estimateCost, setCloudPricesAsAdmin } from '../../messaging/cloud/cost.ts';
import { receiveWebhook, verifyWebhook, type WebhookAnswer } from '../../messaging/cloud/webhook.ts';
import { type App, requireAdmin, requireUser } from '../types.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse };

/**
 * Meta calls the webhook for every status of every message: about three a message, and a number on
 * Meta's HIGH throughput sends up to 1,000 messages a second. Counted per account (Meta calls from
 * many addresses), bounded at 4,000 a second over a minute.
 */
const WEBHOOK_RATE_LIMIT = {
  max: 240_000,
  timeWindow: 60_000,
  keyGenerator: (request: { params: unknown }) =>
    `cloud-webhook:${(request.params as { sessionId?: string }).sessionId ?? ''}`,
};

/** Cloud API accounts: connect, templates, cost, prices, and Meta's webhook. */
export async function registerCloudRoutes(app: App, ctx: AppContext): Promise<void> {
  app.post(
    '/api/cloud-instances',
    {
      schema: {
        tags: ['sessions'],
        summary: 'Connect a WhatsApp Cloud API number (checked against the Graph API)',
        body: CreateCloudAccountBody,
        response: { 200: CreateCloudAccountResponse, ...errors, 409: ErrorResponse, 503: ErrorResponse },
      },
    },
    async (request) => {
      const { accountId } = await createCloudAccount(ctx, requireUser(request), request.body);
      return { success: true as const, sessionId: accountId };
    },
  );

  app.get(
    '/api/session/:sessionId/templates',
    {
      schema: {
        tags: ['sessions'],
        summary: "A Cloud API account's message templates (refreshed from Meta at most once a minute)",
        params: AccountIdParams,
        response: { 200: TemplatesResponse, ...errors },
      },
    },
    async (request) => ({
      success: true as const,
      templates: await listCloudTemplates(ctx, requireUser(request), request.params.sessionId),
    }),
  );

  app.post(
    '/api/session/:sessionId/cost-estimate',
    {
      schema: {
        tags: ['sessions'],
        summary: "What a template send would cost at Meta's rate, and how many the 24-hour tier lets go now",
        params: AccountIdParams,
        body: CostEstimateBody,
        response: { 200: CostEstimateResponse, ...errors },
      },
    },
    async (request) => estimateCost(ctx, requireUser(request), request.params.sessionId, request.body),
  );

  app.get(
    '/api/cloud/prices',
    { schema: { tags: ['sessions'], response: { 200: CloudPricesResponse, 401: ErrorResponse } } },
    async (request) => {
      requireUser(request);
      return { success: true as const, prices: await cloudPriceList(ctx.db) };
    },
  );

  app.put(
    '/api/cloud/prices',
    {
      schema: {
        tags: ['admin'],
        summary: "Meta's price per delivered message of each category (ten-thousandths of a rupee)",
        body: CloudPricesBody,
        response: { 200: CloudPricesResponse, ...errors },
      },
      // A signed-in admin only (never an API key): 403 before the body is read.
      config: { admin: true },
    },
    async (request) => ({
      success: true as const,
      prices: await setCloudPricesAsAdmin(ctx.db, requireAdmin(request), request.ip, request.body.prices),
    }),
  );

  // Meta's webhook: public (Meta sends no bearer token), checked by the verify token (GET) and by
  // the signature over the raw bytes (POST). In its own scope, JSON bodies stay raw bytes.
  await app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
      // Not enumerable: the NUL check of app.ts walks a body's own keys, not these bytes.
      const wrapped = {};
      Object.defineProperty(wrapped, 'raw', { value: body, enumerable: false });
      done(null, wrapped);
    });
    scope.get(
      '/api/cloud/webhook/:sessionId',
      {
        schema: {
          tags: ['webhooks'],
          summary: "Meta's webhook verification: echoes hub.challenge when hub.verify_token is the account's",
          params: AccountIdParams,
          querystring: z.record(z.string(), z.string()),
        },
        config: { public: true, rateLimit: WEBHOOK_RATE_LIMIT },
      },
      async (request, reply) => {
        const answer = await verifyWebhook(
          ctx,
          (request.params as { sessionId: string }).sessionId,
          request.query as Record<string, unknown>,
        );
        return sendWebhookAnswer(reply, answer);
      },
    );
    scope.post(
      '/api/cloud/webhook/:sessionId',
      {
        schema: {
          tags: ['webhooks'],
          summary: "Meta's events (statuses, inbound messages), signed with X-Hub-Signature-256",
          params: AccountIdParams,
        },
        config: { public: true, rateLimit: WEBHOOK_RATE_LIMIT },
      },
      async (request, reply) => {
        const raw = (request.body as { raw?: Buffer } | undefined)?.raw ?? Buffer.alloc(0);
        const header = request.headers['x-hub-signature-256'];
        const answer = await receiveWebhook(
          ctx,
          (request.params as { sessionId: string }).sessionId,
          raw,
          Array.isArray(header) ? header[0] : header,
        );
        return sendWebhookAnswer(reply, answer);
      },
    );
  });
}

/**
 * Meta reads only the status (and, for the verification, the challenge as plain text); a refusal
 * is the API's JSON error all the same, so a person testing the URL by hand reads why.
 */
function sendWebhookAnswer(reply: FastifyReply, answer: WebhookAnswer) {
  if (answer.status >= 400) return reply.code(answer.status).send({ success: false, message: answer.body });
  return reply.code(answer.status).type('text/plain').send(answer.body);
}
