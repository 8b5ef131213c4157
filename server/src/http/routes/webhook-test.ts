import { ErrorResponse, IdParams, WebhookTestResponse } from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { sendWebhookTestEvent } from '../../webhooks/test-event.ts';
import type { App } from '../types.ts';
import { callerOf } from './caller.ts';

/** The test call of a webhook, as long as a real delivery may take (5 s). */
const TEST_TIMEOUT_MS = 5000;

export function registerWebhookTestRoute(app: App, ctx: AppContext): void {
  app.post(
    '/api/webhooks/:id/test',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Send one signed test event to a webhook now and answer how it went',
        params: IdParams,
        response: { 200: WebhookTestResponse, 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse },
      },
    },
    async (request) => ({
      success: true as const,
      attempt: await sendWebhookTestEvent(ctx.db, callerOf(request).user, request.params.id, {
        timeoutMs: TEST_TIMEOUT_MS,
        allowPrivate: ctx.config.allowPrivateWebhooks,
        secretKey: ctx.config.secretKey,
      }),
    }),
  );
}
