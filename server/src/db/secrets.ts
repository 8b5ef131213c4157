import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { and, eq, isNotNull, notLike, sql } from 'drizzle-orm';
import { ConfigError } from '../errors.ts';
import type { Db } from './client.ts';
import { users, waAuthState, webhooks } from './schema.ts';

/** Marks an encrypted value: `enc1:` + base64(iv 12 bytes | tag 16 bytes | ciphertext). */
const PREFIX = 'enc1:';
export const SECRET_KEY_FILE = 'secret.key';
/** The advisory lock the migrations take (db/client.ts): two starting nodes encrypt one at a time. */
const MIGRATION_LOCK = 727274;

/**
 * AES-256-GCM for the stored secrets (WhatsApp auth state, TOTP and webhook secrets). The
 * associated data binds a value to its row (e.g. account and key), so a value copied to another row does not decrypt.
 */
export function encryptValue(key: Buffer, context: string, plain: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

/** The plain text of a stored value; a value written before encryption existed is returned as is. */
export function decryptValue(key: Buffer | undefined, context: string, stored: string): string {
  if (!stored.startsWith(PREFIX)) return stored;
  if (!key) throw new Error('A stored secret is encrypted: set SECRET_KEY to the key it was written with');
  const raw = Buffer.from(stored.slice(PREFIX.length), 'base64');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

export const authStateContext = (accountId: string, key: string) =>
  `wa_auth_state\u0000${accountId}\u0000${key}`;
export const totpSecretContext = (userId: string) => `users.totp_secret\u0000${userId}`;
export const webhookSecretContext = (webhookId: string) => `webhooks.secret\u0000${webhookId}`;
/** A Cloud API account's access token, app secret or verify token (`field`), bound to its account. */
export const cloudSecretContext = (accountId: string, field: string) =>
  `cloud_accounts.${field}\u0000${accountId}`;

export const accountProxyContext = (accountId: string) => `wa_sessions.proxy\u0000${accountId}`;

/** A secret as it is stored: encrypted when there is a key (same rule as the WhatsApp keys). */
export const sealSecret = (key: Buffer | undefined, context: string, plain: string): string =>
  key ? encryptValue(key, context, plain) : plain;

/**
 * The key that encrypts the auth state: SECRET_KEY, else (embedded database) a key file made
 * once in DATA_DIR with mode 0600. With DATABASE_URL every node needs the same key, so the real
 * provider refuses to start without it; the simulator's fake credentials stay plain.
 */
export function resolveSecretKey(config: {
  secretKey: Buffer | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  waProvider: string;
}): Buffer | undefined {
  if (config.secretKey) return config.secretKey;
  if (config.databaseUrl) {
    if (config.waProvider === 'simulator') return undefined;
    throw new ConfigError(
      'SECRET_KEY is required with DATABASE_URL and WA_PROVIDER=baileys: it encrypts the WhatsApp keys in the database and every process must use the same one (make one with: openssl rand -hex 32)',
    );
  }
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(config.dataDir, SECRET_KEY_FILE);
  try {
    fs.writeFileSync(file, `${crypto.randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const text = fs.readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/i.test(text)) throw new ConfigError(`${file} does not hold a key (64 hex digits)`);
  return Buffer.from(text, 'hex');
}

/**
 * Encrypts the secrets still stored as plain text (written before encryption, or while no key
 * was set): the WhatsApp auth state, TOTP secrets and webhook secrets. Under the migration
 * lock, so two nodes starting together do not both do it. Returns how many values it encrypted.
 */
export async function encryptPlainSecrets(db: Db, key: Buffer): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    let done = 0;
    for (;;) {
      const rows = await tx
        .select({ accountId: waAuthState.accountId, key: waAuthState.key, value: waAuthState.value })
        .from(waAuthState)
        .where(notLike(waAuthState.value, `${PREFIX}%`))
        .limit(500);
      if (rows.length === 0) break;
      for (const row of rows) {
        await tx
          .update(waAuthState)
          .set({ value: encryptValue(key, authStateContext(row.accountId, row.key), row.value) })
          .where(and(eq(waAuthState.accountId, row.accountId), eq(waAuthState.key, row.key)));
      }
      done += rows.length;
    }
    // Few rows (one per user or webhook): one pass each.
    const totp = await tx
      .select({ id: users.id, secret: users.totpSecret })
      .from(users)
      .where(and(isNotNull(users.totpSecret), notLike(users.totpSecret, `${PREFIX}%`)));
    for (const row of totp)
      await tx
        .update(users)
        .set({ totpSecret: encryptValue(key, totpSecretContext(row.id), row.secret!) })
        .where(eq(users.id, row.id));
    const hooks = await tx
      .select({ id: webhooks.id, secret: webhooks.secret })
      .from(webhooks)
      .where(notLike(webhooks.secret, `${PREFIX}%`));
    for (const row of hooks)
      await tx
        .update(webhooks)
        .set({ secret: encryptValue(key, webhookSecretContext(row.id), row.secret) })
        .where(eq(webhooks.id, row.id));
    return done + totp.length + hooks.length;
  });
}
