import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { waAuthState } from '../db/schema.ts';
import { authStateContext, decryptValue, encryptValue } from '../db/secrets.ts';

/** One write of a key: a value to upsert, or null to delete the key. */
export type AuthEntry = { key: string; value: string | null };

/**
 * An account's credentials and keys as text, in `wa_auth_state`. Each `write` is one transaction,
 * so a batch of signal keys is stored whole or not at all.
 */
export interface AuthStore {
  readonly accountId: string;
  read(key: string): Promise<string | null>;
  readMany(keys: string[]): Promise<Map<string, string>>;
  write(entries: AuthEntry[]): Promise<void>;
  /** Removes every key of the account (logout). */
  wipe(): Promise<void>;
}

/** With `secretKey` every value is stored encrypted (AES-256-GCM, db/secrets.ts); plain rows still read. */
export function createDbAuthStore(db: Db, accountId: string, secretKey?: Buffer): AuthStore {
  const open = (key: string, value: string) =>
    decryptValue(secretKey, authStateContext(accountId, key), value);
  const seal = (key: string, value: string) =>
    secretKey ? encryptValue(secretKey, authStateContext(accountId, key), value) : value;
  return {
    accountId,
    async read(key) {
      const [row] = await db
        .select({ value: waAuthState.value })
        .from(waAuthState)
        .where(and(eq(waAuthState.accountId, accountId), eq(waAuthState.key, key)));
      return row ? open(key, row.value) : null;
    },
    async readMany(keys) {
      const found = new Map<string, string>();
      if (keys.length === 0) return found;
      const rows = await db
        .select({ key: waAuthState.key, value: waAuthState.value })
        .from(waAuthState)
        .where(and(eq(waAuthState.accountId, accountId), inArray(waAuthState.key, keys)));
      for (const row of rows) found.set(row.key, open(row.key, row.value));
      return found;
    },
    async write(entries) {
      if (entries.length === 0) return;
      const upserts = new Map<string, string>();
      const deletes = new Set<string>();
      // The last write of a key in a batch wins.
      for (const { key, value } of entries) {
        if (value === null) {
          upserts.delete(key);
          deletes.add(key);
        } else {
          deletes.delete(key);
          upserts.set(key, value);
        }
      }
      await db.transaction(async (tx) => {
        if (deletes.size > 0) {
          await tx
            .delete(waAuthState)
            .where(and(eq(waAuthState.accountId, accountId), inArray(waAuthState.key, [...deletes])));
        }
        const rows = [...upserts].map(([key, value]) => ({
          accountId,
          key,
          value: seal(key, value),
          updatedAt: new Date(),
        }));
        // Chunks stay far below the bind-parameter limit.
        for (let i = 0; i < rows.length; i += 1000) {
          await tx
            .insert(waAuthState)
            .values(rows.slice(i, i + 1000))
            .onConflictDoUpdate({
              target: [waAuthState.accountId, waAuthState.key],
              set: { value: sql`excluded.value`, updatedAt: new Date() },
            });
        }
      });
    },
    async wipe() {
      await db.delete(waAuthState).where(eq(waAuthState.accountId, accountId));
    },
  };
}
