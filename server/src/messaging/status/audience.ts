import { chatIdOfPhone } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import { isPhoneChat } from '../../db/vocabulary-sql.ts';
import type { Actor } from '../../policy/access.ts';
import { gatherIndividuals } from '../accept/personalise.ts';

/**
 * Everyone the account has messaged one-to-one: the numbers of its sent recipients (an erased
 * number's rows hold a token, not a JID, and drop out).
 */
export async function everyoneMessaged(db: Db, accountId: string): Promise<string[]> {
  const rows = await queryRows<{ chat_id: string }>(
    db,
    sql`SELECT DISTINCT chat_id FROM message_job_recipients
        WHERE session_id = ${accountId} AND status = 'sent' AND ${isPhoneChat(sql.raw('chat_id'))}
        ORDER BY chat_id`,
  );
  return rows.map((r) => r.chat_id);
}

/** The numbers (as chat ids, each once) on the sender's own contact lists; another's list answers 404. */
export async function listMembers(
  db: Db,
  actor: Actor,
  listIds: string[],
  defaultCallingCode: string,
): Promise<string[]> {
  const { chatIds } = await gatherIndividuals(db, actor, { contactListIds: listIds }, defaultCallingCode);
  // Stored by the phone rule already (contacts hold digits): kept as given.
  return [...new Set(chatIds.map((id) => (id.includes('@') ? id : chatIdOfPhone(id))))];
}
