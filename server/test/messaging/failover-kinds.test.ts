import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { reassign } from '../../src/messaging/engine/transitions.ts';
import { buildAccount, buildJob, recipientsOf } from '../fakes/messaging.ts';
import { buildUser, DB_KINDS, testAppFor } from '../helpers.ts';

/**
 * The failover of a job spread over both kinds moves a down account's waiting recipients
 * only to an account of the same kind: a linked phone's recipient of a template job holds the
 * template's text, a Cloud one its values, and a cold number must not move onto a phone.
 */
describe.each(DB_KINDS)('failover keeps each recipient on its kind of account on %s', (kind) => {
  const t = testAppFor(kind);

  it('moves a down phone’s recipients to the other phone, never to the Cloud account', async () => {
    const user = await buildUser(t);
    const down = await buildAccount(t, user.id, { status: 'DISCONNECTED' });
    const phone = await buildAccount(t, user.id, { ownerNode: 'node-a' });
    const cloud = await buildAccount(t, user.id, { ownerNode: 'node-a' });
    await t.db.execute(sql`UPDATE wa_sessions SET kind = 'cloud' WHERE session_id = ${cloud}`);
    await t.db.execute(
      sql`UPDATE wa_sessions SET status_changed_at = now() - interval '1 hour' WHERE session_id = ${down}`,
    );
    const jobId = await buildJob(t, user.id, down, {
      audience: 'individuals',
      status: 'processing',
      total: 4,
      accountIds: [down, cloud, phone],
    });
    await t.db.execute(
      sql`INSERT INTO message_job_recipients (job_id, session_id, chat_id, content, due_at)
          VALUES (${jobId}, ${down}, '919811400001@s.whatsapp.net', 'Your order A-7 has shipped.', now()),
                 (${jobId}, ${down}, '919811400002@s.whatsapp.net', 'Your order A-8 has shipped.', now()),
                 (${jobId}, ${cloud}, '919811400003@s.whatsapp.net', '["A-9"]', now())`,
    );
    const woken = await reassign(t.db, 1000, 100);
    expect(woken).toEqual([phone]);
    expect((await recipientsOf(t.db, jobId)).map((r) => [r.chatId.split('@')[0], r.accountId])).toEqual([
      ['919811400001', phone],
      ['919811400002', phone],
      ['919811400003', cloud],
    ]);

    // With no other phone up, a down phone's recipients wait rather than go to the Cloud account.
    await t.db.execute(sql`UPDATE wa_sessions SET status = 'DISCONNECTED', status_changed_at = now() - interval '1 hour'
                           WHERE session_id = ${phone}`);
    expect(await reassign(t.db, 1000, 100)).toEqual([]);
    expect((await recipientsOf(t.db, jobId)).filter((r) => r.accountId === cloud).length).toBe(1);
  });

  it('a long-restricted (463) phone keeps the chats that carry an unexpired privacy token; its new chats move', async () => {
    const user = await buildUser(t);
    const restricted = await buildAccount(t, user.id, { ownerNode: 'node-a' });
    const phone = await buildAccount(t, user.id, { ownerNode: 'node-a' });
    await t.db.execute(
      sql`UPDATE wa_sessions SET send_paused = true, send_paused_until = now() + interval '2 days'
          WHERE session_id = ${restricted}`,
    );
    const jobId = await buildJob(t, user.id, restricted, {
      audience: 'individuals',
      status: 'processing',
      total: 3,
      accountIds: [restricted, phone],
    });
    const chat = (n: number) => `91981150000${n}@s.whatsapp.net`;
    await t.db.execute(
      sql`INSERT INTO message_job_recipients (job_id, session_id, chat_id, content, due_at)
          VALUES (${jobId}, ${restricted}, ${chat(1)}, 'Hi', now()),
                 (${jobId}, ${restricted}, ${chat(2)}, 'Hi', now()),
                 (${jobId}, ${restricted}, ${chat(3)}, 'Hi', now())`,
    );
    // The first contact's token is good for a week; the second's ran out yesterday; the third gave none.
    await t.db.execute(
      sql`INSERT INTO wa_privacy_tokens (session_id, chat_id, expires_at)
          VALUES (${restricted}, ${chat(1)}, now() + interval '7 days'),
                 (${restricted}, ${chat(2)}, now() - interval '1 day')`,
    );
    expect(await reassign(t.db, 1000, 100)).toEqual([phone]);
    expect((await recipientsOf(t.db, jobId)).map((r) => [r.chatId.split('@')[0], r.accountId])).toEqual([
      ['919811500001', restricted],
      ['919811500002', phone],
      ['919811500003', phone],
    ]);
    expect(await reassign(t.db, 1000, 100)).toEqual([]);

    // Down as well (not only restricted): the chat with a token moves too.
    await t.db.execute(sql`UPDATE wa_sessions SET status = 'DISCONNECTED', status_changed_at = now() - interval '1 hour'
                           WHERE session_id = ${restricted}`);
    expect(await reassign(t.db, 1000, 100)).toEqual([phone]);
    expect((await recipientsOf(t.db, jobId)).every((r) => r.accountId === phone)).toBe(true);
  });
});
