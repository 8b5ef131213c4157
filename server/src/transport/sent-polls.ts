/**
 * The polls an account sent, as the Baileys transport reads them to decrypt a vote (its storage
 * port, baileys/poll-votes.ts): the poll's options and its job's message secret, found by the
 * sent message's id, which the vote names (pollCreationMessageKey.id).
 */
import { parsePoll, pollOfValue } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/client.ts';

/** A poll the account sent: its options in order, and the secret its votes are encrypted with. */
export type SentPoll = { options: string[]; secret: Buffer };

/** The poll message `messageId` the account sent, or null (not a poll of the product's, or sent without a kept secret). */
export type SentPollLookup = (messageId: string) => Promise<SentPoll | null>;

export function sentPolls(db: Db, accountId: string): SentPollLookup {
  return async (messageId) => {
    const [row] = await queryRows<{ poll: unknown; content: string; poll_secret: Buffer | Uint8Array }>(
      db,
      sql`SELECT j.poll, j.content, j.poll_secret
          FROM message_job_recipients r JOIN message_jobs j ON j.id = r.job_id
          WHERE r.session_id = ${accountId} AND r.message_id = ${messageId}
            AND j.message_type = 'poll' AND j.poll_secret IS NOT NULL
          LIMIT 1`,
    );
    if (!row) return null;
    const poll = pollOfValue(row.poll) ?? parsePoll(row.content);
    return poll ? { options: poll.pollOptions, secret: Buffer.from(row.poll_secret) } : null;
  };
}
