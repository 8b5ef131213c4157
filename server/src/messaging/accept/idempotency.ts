import type { SendBody, SendResponse, StatusSendBody } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import { badRequest, conflict } from '../../errors.ts';
import { sha256 } from '../../ids.ts';
import type { Audience } from '../compose.ts';

/** The Idempotency-Key of a send: the key's fingerprint, its stored answer, and its replay. */

export type IdempotentAnswer = { requestHash: string; response: Record<string, unknown> | null };

/** The answer stored for a key within the last 24 hours, if any. */
export async function findIdempotentAnswer(
  db: Db,
  userId: string,
  key: string,
): Promise<IdempotentAnswer | undefined> {
  const [row] = await queryRows<{ request_hash: string; response: Record<string, unknown> | null }>(
    db,
    sql`SELECT request_hash, response FROM idempotency_keys
        WHERE user_id = ${userId} AND key = ${key} AND created_at > now() - interval '24 hours'`,
  );
  return row ? { requestHash: row.request_hash, response: row.response } : undefined;
}

/**
 * Takes the key for this request (a new key, or one older than 24 hours) and returns undefined;
 * when the key is held by a request of the last 24 hours, returns that request's answer. A
 * concurrent request holding the key makes this wait until it commits or rolls back.
 */
export async function claimIdempotencyKey(
  db: Db,
  userId: string,
  key: string,
  requestHash: string,
): Promise<IdempotentAnswer | undefined> {
  const taken = await queryRows(
    db,
    sql`INSERT INTO idempotency_keys (user_id, key, request_hash) VALUES (${userId}, ${key}, ${requestHash})
        ON CONFLICT (user_id, key) DO UPDATE
          SET request_hash = EXCLUDED.request_hash, response = NULL, created_at = now()
          WHERE idempotency_keys.created_at <= now() - interval '24 hours'
        RETURNING 1`,
  );
  if (taken.length > 0) return undefined;
  const [row] = await queryRows<{ request_hash: string; response: Record<string, unknown> | null }>(
    db,
    sql`SELECT request_hash, response FROM idempotency_keys WHERE user_id = ${userId} AND key = ${key}`,
  );
  return { requestHash: row?.request_hash ?? '', response: row?.response ?? null };
}

export async function saveIdempotentAnswer(
  db: Db,
  userId: string,
  key: string,
  response: Record<string, unknown>,
): Promise<void> {
  await db.execute(
    sql`UPDATE idempotency_keys SET response = ${JSON.stringify(response)}::jsonb
        WHERE user_id = ${userId} AND key = ${key}`,
  );
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The key as sent and the fingerprint of the request it stands for (what the route sends — an
 * audience, or 'status' — the account and the body).
 */
export function idempotencyOf(
  key: string,
  what: Audience | 'status',
  accountId: string,
  body: SendBody | StatusSendBody,
) {
  if (!IDEMPOTENCY_KEY.test(key))
    throw badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters');
  return { key, requestHash: sha256(JSON.stringify([what, accountId, body])) };
}

/** The first answer for a repeated key, or 409 when the key came with another request. */
export function replay(previous: IdempotentAnswer, requestHash: string): SendResponse {
  if (previous.requestHash !== requestHash || !previous.response) {
    throw conflict('Idempotency-Key reused with a different request');
  }
  return previous.response as SendResponse;
}
