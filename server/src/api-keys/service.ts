import type { ApiKey, CreateApiKeyResponse } from '@wa/contract';
import { recordAudit } from '../audit/record.ts';
import type { Db } from '../db/client.ts';
import { badRequest } from '../errors.ts';
import { newId, randomToken, sha256 } from '../ids.ts';
import { type Actor, authorizeApiKey } from '../policy/access.ts';
import { findUserById, type UserRow } from '../users/repository.ts';
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
});

export async function listApiKeys(db: Db, caller: KeyCaller): Promise<ApiKey[]> {
  return (await listKeysOf(db, caller.user.id)).map(present);
}

/** Makes a key; the whole key is in this answer only (the database keeps its hash). */
export async function createApiKey(
  db: Db,
  caller: KeyCaller,
  name: string,
): Promise<Omit<CreateApiKeyResponse, 'success'>> {
  if ((await countActiveKeysOf(db, caller.user.id)) >= MAX_KEYS_PER_USER)
    throw badRequest(`You can have at most ${MAX_KEYS_PER_USER} API keys: revoke one first`);
  const key = `${API_KEY_PREFIX}${randomToken(32)}`;
  const row = await db.transaction(async (tx) => {
    const created = await insertKey(tx, {
      id: newId(),
      userId: caller.user.id,
      name,
      prefix: key.slice(0, 12),
      keyHash: sha256(key),
    });
    await recordAudit(tx, {
      actor: { id: caller.user.id, username: caller.user.username },
      action: 'apikey.create',
      targetUserId: caller.user.id,
      details: { keyId: created.id, name, prefix: created.prefix },
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
