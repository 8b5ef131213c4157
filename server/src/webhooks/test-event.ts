import { WEBHOOK_TEST_EVENT, type WebhookAttempt } from '@wa/contract';
import type { Db } from '../db/client.ts';
import { type Actor, authorizeWebhook } from '../policy/access.ts';
import { callWebhook } from './deliverer.ts';
import type { WebhookEvent } from './repository.ts';

/**
 * 'Send test event': one signed call to the webhook now, answered with its
 * outcome, so a receiver can be checked before a real event is owed. It is not a delivery: not
 * queued, not retried, not in the attempts list.
 */
export async function sendWebhookTestEvent(
  db: Db,
  actor: Actor,
  id: string,
  options: { timeoutMs: number; allowPrivate: boolean; secretKey: Buffer | undefined },
): Promise<WebhookAttempt> {
  const row = await authorizeWebhook(db, actor, 'act', id);
  const at = new Date();
  const result = await callWebhook(
    {
      webhook: { id: row.id, url: row.url, secret: row.secret },
      // The deliverer writes the event's name into the body as it is; a test is no queued event.
      event: WEBHOOK_TEST_EVENT as WebhookEvent,
      deliveries: [
        {
          id: at.getTime(),
          data: { webhookId: row.id, message: 'A test event from Send test event', at: at.toISOString() },
          createdAt: at.toISOString(),
        },
      ],
    },
    options,
  );
  return {
    id: `test_${at.getTime()}`,
    event: WEBHOOK_TEST_EVENT,
    events: 1,
    at: at.toISOString(),
    durationMs: Math.round(result.durationMs),
    statusCode: result.statusCode,
    ok: result.ok,
    error: result.error,
  };
}
