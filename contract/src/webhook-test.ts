import { z } from 'zod';
import { WebhookAttempt } from './operations.ts';

/** POST /api/webhooks/:id/test: the one signed test call made now, and how it went. */
export const WebhookTestResponse = z.object({ success: z.literal(true), attempt: WebhookAttempt });
export type WebhookTestResponse = z.infer<typeof WebhookTestResponse>;

/** The event name of a test call; receivers see it in `event` (never queued, never retried). */
export const WEBHOOK_TEST_EVENT = 'webhook.test';
