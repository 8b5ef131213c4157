import type {
  CreateWebhookBody,
  CreateWebhookResponse,
  Webhook,
  WebhookAttempt,
  WebhookPayloads,
} from '@wa/contract';
import { type AuditActor, recordAudit } from '../audit/record.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { sealSecret, webhookSecretContext } from '../db/secrets.ts';
import { badRequest } from '../errors.ts';
import { newId, randomToken } from '../ids.ts';
import { type Actor, authorizeWebhook } from '../policy/access.ts';
import { lockOwner } from '../users/repository.ts';
import { addressesOf, isPublicAddress, PRIVATE_ADDRESS_MESSAGE } from './address.ts';
import {
  attemptsOf,
  countWebhooksOf,
  deleteWebhookRow,
  insertDeliveries,
  insertWebhook,
  listWebhooksOf,
  type WebhookEvent,
  type WebhookRow,
} from './repository.ts';

export const MAX_WEBHOOKS_PER_USER = 10;

/** Who asks: the actor for the policy and the audit log, and their address. */
export type Caller = { user: Actor & { username: string }; ip: string | null };

const present = (row: WebhookRow): Webhook => ({
  id: row.id,
  url: row.url,
  events: row.events as WebhookEvent[],
  createdAt: row.createdAt.toISOString(),
});

const auditActor = (caller: Caller): AuditActor => ({ id: caller.user.id, username: caller.user.username });

/** The URL as it will be called, or a 400 that says what is wrong with it. */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest('Webhook URL is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw badRequest('Webhook URL must start with https:// or http://');
  if (url.username || url.password) throw badRequest('Webhook URL must not contain a user name or password');
  if (allowPrivate) return url;
  let addresses: string[];
  try {
    addresses = await addressesOf(url.hostname);
  } catch {
    throw badRequest(`Webhook URL host ${url.hostname} cannot be resolved`);
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) throw badRequest(PRIVATE_ADDRESS_MESSAGE);
  return url;
}

export async function listWebhooks(db: Db, caller: Caller): Promise<Webhook[]> {
  return (await listWebhooksOf(db, caller.user.id)).map(present);
}

/**
 * Adds a webhook. The limit is counted with the owner's row locked, so parallel requests cannot
 * pass it together; the secret is stored encrypted when there is a key (db/secrets.ts).
 */
export async function createWebhook(
  db: Db,
  config: Pick<Config, 'allowPrivateWebhooks' | 'secretKey'>,
  caller: Caller,
  body: CreateWebhookBody,
): Promise<CreateWebhookResponse['webhook']> {
  const url = await checkWebhookUrl(body.url, config.allowPrivateWebhooks);
  const events = [...new Set(body.events)];
  const secret = `whsec_${randomToken(24)}`;
  const id = newId();
  const row = await db.transaction(async (tx) => {
    await lockOwner(tx, caller.user.id);
    if ((await countWebhooksOf(tx, caller.user.id)) >= MAX_WEBHOOKS_PER_USER)
      throw badRequest(`You can have at most ${MAX_WEBHOOKS_PER_USER} webhooks`);
    const created = await insertWebhook(tx, {
      id,
      userId: caller.user.id,
      url: url.toString(),
      events,
      secret: sealSecret(config.secretKey, webhookSecretContext(id), secret),
    });
    await recordAudit(tx, {
      actor: auditActor(caller),
      action: 'webhook.create',
      targetUserId: caller.user.id,
      details: { webhookId: created.id, url: created.url, events },
      ip: caller.ip,
    });
    return created;
  });
  return { id: row.id, url: row.url, events, secret };
}

export async function deleteWebhook(db: Db, caller: Caller, id: string): Promise<void> {
  const row = await authorizeWebhook(db, caller.user, 'act', id);
  await db.transaction(async (tx) => {
    await deleteWebhookRow(tx, row.id);
    await recordAudit(tx, {
      actor: auditActor(caller),
      action: 'webhook.delete',
      targetUserId: row.userId,
      details: { webhookId: row.id, url: row.url },
      ip: caller.ip,
    });
  });
}

export async function webhookAttempts(db: Db, caller: Caller, id: string): Promise<WebhookAttempt[]> {
  const row = await authorizeWebhook(db, caller.user, 'read', id);
  return (await attemptsOf(db, row.id)).map((a) => ({
    id: String(a.id),
    event: a.event,
    events: a.events,
    at: a.at.toISOString(),
    durationMs: a.durationMs,
    statusCode: a.statusCode,
    ok: a.ok,
    error: a.error,
  }));
}

/** Event payloads, as the receiver reads them in `data` (contract/webhook-events.ts). */
export type { WebhookPayloads };

/**
 * Owes an event to every webhook of `userId` that wants it. Call it inside the transaction
 * that makes the change, so that the event is recorded exactly when the change is.
 */
export async function queueWebhookEvents<E extends WebhookEvent>(
  db: Db,
  userId: string,
  event: E,
  data: WebhookPayloads[E][],
): Promise<void> {
  await insertDeliveries(db, userId, event, data);
}
