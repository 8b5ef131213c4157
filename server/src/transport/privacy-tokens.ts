/**
 * The one-to-one chats whose contact gave the account its privacy token, in wa_privacy_tokens:
 * the Baileys transport's storage port (baileys/privacy-tokens.ts), read by the engine's claim so
 * that a restriction of new chats (463) holds back only the chats without one.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';

export type PrivacyTokenStore = {
  /** The contact of `chatId` (a phone-number chat JID) gave a token usable until `expiresAt`; null: none now. */
  note(chatId: string, expiresAt: Date | null): Promise<void>;
};

export function privacyTokenStore(db: Db, accountId: string): PrivacyTokenStore {
  return {
    async note(chatId, expiresAt) {
      if (!expiresAt) {
        await db.execute(
          sql`DELETE FROM wa_privacy_tokens WHERE session_id = ${accountId} AND chat_id = ${chatId}`,
        );
        return;
      }
      await db.execute(
        sql`INSERT INTO wa_privacy_tokens (session_id, chat_id, expires_at)
            VALUES (${accountId}, ${chatId}, ${expiresAt.toISOString()}::timestamptz)
            ON CONFLICT (session_id, chat_id) DO UPDATE SET expires_at = excluded.expires_at`,
      );
    },
  };
}

/** The chat `chatId` of account `accountId` carries an unexpired privacy token (two SQL texts). */
export const carriesPrivacyToken = (accountId: SQL, chatId: SQL) => sql`EXISTS (
      SELECT 1 FROM wa_privacy_tokens t
      WHERE t.session_id = ${accountId} AND t.chat_id = ${chatId} AND t.expires_at > now())`;
