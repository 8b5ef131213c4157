import {
  CreateWebhookBody,
  CreateWebhookResponse,
  ErrorResponse,
  IdParams,
  SuccessMessage,
  WebhookAttemptsResponse,
  WebhooksResponse,
} from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { createWebhook, deleteWebhook, listWebhooks, webhookAttempts } from '../../webhooks/service.ts';
import type { App } from '../types.ts';
import { callerOf } from './caller.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

/** Signed webhooks of the signed-in user. */
export function registerWebhookRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Your webhooks',
        response: { 200: WebhooksResponse, ...errors },
      },
    },
    async (request) => ({ success: true as const, webhooks: await listWebhooks(ctx.db, callerOf(request)) }),
  );

  app.post(
    '/api/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Add a webhook; its signing secret is shown only in this answer',
        body: CreateWebhookBody,
        response: { 200: CreateWebhookResponse, ...errors },
      },
    },
    async (request) => ({
      success: true as const,
      webhook: await createWebhook(ctx.db, ctx.config, callerOf(request), request.body),
    }),
  );

  app.delete(
    '/api/webhooks/:id',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Remove a webhook and the deliveries it still owes',
        params: IdParams,
        response: { 200: SuccessMessage, ...errors },
      },
    },
    async (request) => {
      await deleteWebhook(ctx.db, callerOf(request), request.params.id);
      return { success: true, message: 'Webhook deleted' };
    },
  );

  app.get(
    '/api/webhooks/:id/attempts',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'The last 50 calls made to a webhook, newest first',
        params: IdParams,
        response: { 200: WebhookAttemptsResponse, ...errors },
      },
    },
    async (request) => ({
      success: true as const,
      attempts: await webhookAttempts(ctx.db, callerOf(request), request.params.id),
    }),
  );
}
