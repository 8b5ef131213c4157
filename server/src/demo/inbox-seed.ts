import { sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { queryRows } from '../db/client.ts';
import { keepIncoming } from '../messaging/inbox/incoming.ts';

/**
 * The demo's Inbox: the replies of the history's one-to-one jobs, taken as the engine takes an
 * incoming message (messaging/inbox/incoming.ts), each in the thread of its person with the job it
 * answers; the oldest third already read and a few marked done, the rest waiting for an answer.
 */
export async function seedInbox(ctx: AppContext, userId: string, accountId: string): Promise<void> {
  const replies = await queryRows<{
    id: string;
    chat_id: string;
    reply_text: string;
    replied_at: Date | string;
  }>(
    ctx.db,
    sql`SELECT r.id::text AS id, r.chat_id, r.reply_text, r.replied_at
        FROM message_job_recipients r JOIN message_jobs j ON j.id = r.job_id
        WHERE j.user_id = ${userId} AND r.session_id = ${accountId} AND r.replied_at IS NOT NULL
        ORDER BY r.replied_at`,
  );
  const account = { accountId, userId };
  const people: string[] = [];
  for (const r of replies) {
    const personId = await keepIncoming(ctx, account, {
      from: r.chat_id,
      text: r.reply_text,
      messageId: `3EB0DEMOIN${r.id.padStart(10, '0')}`,
      at: new Date(r.replied_at),
    });
    if (personId) people.push(personId);
  }
  const read = people.slice(0, Math.floor(people.length / 3));
  if (read.length === 0) return;
  await ctx.db.execute(
    sql`UPDATE inbox_threads SET unread = 0 WHERE user_id = ${userId} AND person_id = ANY(${sql.param(read)}::text[])`,
  );
  await ctx.db.execute(
    sql`UPDATE inbox_threads SET state = 'done'
        WHERE user_id = ${userId} AND person_id = ANY(${sql.param(read.filter((_, i) => i % 2 === 0))}::text[])`,
  );
}
