import type { ApiKey, CreateApiKeyBody, CreateApiKeyResponse } from '@wa/contract';
import { recordAudit } from '../audit/record.ts';
import { confirmIdentity } from '../auth/service.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { badRequest } from '../errors.ts';
import { newId, randomToken, sha256 } from '../ids.ts';
import { type Actor, authorizeApiKey } from '../policy/access.ts';
import { findUserById, lockOwner, type UserRow } from '../users/repository.ts';
import { countActiveKeysOf, insertKey, listKeysOf, revokeKey, useKey } from './repository.ts';

export const API_KEY_PREFIX = 'wak_';
export const MAX_KEYS_PER_USER = 20;

export type KeyCaller = { user: Actor & { username: string }; ip: string | null };

export const isApiKey = (token: string): boolean => token.startsWith(API_KEY_PREFIX);

const present = (row: Awaited<ReturnType<typeof listKeysOf>>[number]): ApiKey => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  revokedAt: row.revokedAt?.toISOString() ?? null,
  revokedReason: row.revokedAt ? (row.revokedReason ?? 'revoked') : null,
});

export async function listApiKeys(db: Db, caller: KeyCaller): Promise<ApiKey[]> {
  return (await listKeysOf(db, caller.user.id)).map(present);
}

/**
 * Makes a key once the password (and the two-factor code when it is on) is given again: a
 * stolen sign-in token alone cannot make one. The whole key is in this answer only (the
 * database keeps its hash). The limit is counted with the owner's row locked, so parallel
 * requests cannot pass it together.
 */
export async function createApiKey(
  db: Db,
  config: Config,
  caller: KeyCaller,
  body: CreateApiKeyBody,
): Promise<Omit<CreateApiKeyResponse, 'success'>> {
  await confirmIdentity(db, config, caller.user.id, body, caller.ip ?? 'unknown');
  const key = `${API_KEY_PREFIX}${randomToken(32)}`;
  const row = await db.transaction(async (tx) => {
    await lockOwner(tx, caller.user.id);
    if ((await countActiveKeysOf(tx, caller.user.id)) >= MAX_KEYS_PER_USER)
      throw badRequest(`You can have at most ${MAX_KEYS_PER_USER} API keys: revoke one first`);
    const created = await insertKey(tx, {
      id: newId(),
      userId: caller.user.id,
      name: body.name,
      prefix: key.slice(0, 12),
      keyHash: sha256(key),
    });
    await recordAudit(tx, {
      actor: { id: caller.user.id, username: caller.user.username },
      action: 'apikey.create',
      targetUserId: caller.user.id,
      details: { keyId: created.id, name: body.name, prefix: created.prefix },
      ip: caller.ip,
    });
    return created;
  });
  return { id: row.id, key };
}

export async function revokeApiKey(db: Db, caller: KeyCaller, id: string): Promise<void> {
  const row = await authorizeApiKey(db, caller.user, 'act', id);
  if (row.revokedAt) return;
  await db.transaction(async (tx) => {
    await revokeKey(tx, row.id);
    await recordAudit(tx, {
      actor: { id: caller.user.id, username: caller.user.username },
      action: 'apikey.revoke',
      targetUserId: row.userId,
      details: { keyId: row.id, name: row.name, prefix: row.prefix },
      ip: caller.ip,
    });
  });
}

/** The user a `wak_` key stands for, or null (unknown, revoked, or the user is disabled). */
export async function authenticateApiKey(db: Db, key: string): Promise<UserRow | null> {
  const row = await useKey(db, sha256(key));
  if (!row) return null;
  const user = await findUserById(db, row.userId);
  return user && !user.disabled ? user : null;
}
