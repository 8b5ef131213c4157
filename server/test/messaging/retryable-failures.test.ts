import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { addCredits } from '../../src/credits/credits.ts';
import { creditLedger } from '../../src/db/schema.ts';
import {
  accountOwner,
  balanceOf,
  buildAccount,
  expectLedgerChain,
  jobRow,
  recipientsOf,
  retryJob,
} from '../fakes/messaging.ts';
import { bearer, buildAdmin, buildUser, DB_KINDS, loginToken, testAppFor } from '../helpers.ts';

/** GET /api/message-jobs/:userId/retryable: the Jobs page offers Retry Failed by it. */
describe.each(DB_KINDS)('failures a retry may fix (%s)', (kind) => {
  const t = testAppFor(kind);
  let token: string;
  let userId: string;

  beforeAll(async () => {
    const { user, accountId, token: ownerToken } = await accountOwner(t, { credits: 0 });
    userId = user.id;
    token = ownerToken;
    await t.db.execute(
      sql`INSERT INTO message_jobs (id, user_id, session_id, audience, message_type, content, status, total, sent_count, failed_count)
          VALUES ('mixed', ${userId}, ${accountId}, 'individuals', 'text', 'Hi', 'failed', 5, 1, 4),
                 ('hopeless', ${userId}, ${accountId}, 'individuals', 'text', 'Hi', 'failed', 2, 0, 2),
                 ('done', ${userId}, ${accountId}, 'individuals', 'text', 'Hi', 'completed', 1, 1, 0)`,
    );
    await t.db.execute(
      sql`INSERT INTO message_job_recipients (job_id, session_id, chat_id, status, error) VALUES
            ('mixed', ${accountId}, '919800000001@s.whatsapp.net', 'sent', NULL),
            ('mixed', ${accountId}, '919800000002@s.whatsapp.net', 'failed', 'Not on WhatsApp'),
            ('mixed', ${accountId}, '919800000003@s.whatsapp.net', 'failed', 'Opted out'),
            ('mixed', ${accountId}, '919800000004@s.whatsapp.net', 'failed', 'Session is not connected'),
            ('mixed', ${accountId}, '919800000005@s.whatsapp.net', 'failed', 'Interrupted: delivery unknown'),
            ('hopeless', ${accountId}, '120363000000000001@g.us', 'failed', 'Only admins can send messages to this group'),
            ('hopeless', ${accountId}, '919800000006@s.whatsapp.net', 'failed', 'Not on WhatsApp'),
            ('done', ${accountId}, '919800000007@s.whatsapp.net', 'sent', NULL)`,
    );
  });

  const ask = (ids: string, who = token, user = userId) =>
    t.app.inject({
      method: 'GET',
      url: `/api/message-jobs/${user}/retryable?jobIds=${encodeURIComponent(ids)}`,
      headers: bearer(who),
    });

  it('counts only the failures a retry may fix, per job', async () => {
    const res = await ask('mixed,hopeless,done,unknown-job');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      retryable: { mixed: 2, hopeless: 0, done: 0 },
      // Of them, the one whose delivery is unknown: retried only when the user accepts a second copy.
      deliveryUnknown: { mixed: 1, hopeless: 0, done: 0 },
    });
  });

  it("leaves out another user's jobs; another user or an admin who does not manage the owner gets 404; no token 401", async () => {
    const other = await buildUser(t, { credits: 0 });
    const otherToken = await loginToken(t.app, other.username);
    expect((await ask('mixed', otherToken, other.id)).json()).toEqual({
      success: true,
      retryable: {},
      deliveryUnknown: {},
    });
    expect((await ask('mixed', otherToken)).statusCode).toBe(404);
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/message-jobs/${userId}/retryable?jobIds=mixed`,
        })
      ).statusCode,
    ).toBe(401);
    const admin = await buildAdmin(t);
    expect((await ask('mixed', await loginToken(t.app, admin.username))).statusCode).toBe(404);
  });

  it('refuses more than 200 ids at once', async () => {
    const res = await ask(Array.from({ length: 201 }, (_, i) => `j${i}`).join(','));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('At most 200 job ids at once');
  });

  it('Retry Failed requeues and charges only the failures a retry may fix; one whose delivery is unknown only when the user accepts a second copy; the others stay failed', async () => {
    const owner = await buildUser(t, { credits: 0 });
    await addCredits(t.db, owner.id, 10, 'grant');
    const ownerToken = await loginToken(t.app, owner.username);
    const accountId = await buildAccount(t, owner.id);
    await t.db.execute(
      sql`INSERT INTO message_jobs (id, user_id, session_id, audience, message_type, content, status, total, sent_count, failed_count)
          VALUES ('retry-mixed', ${owner.id}, ${accountId}, 'individuals', 'text', 'Hi', 'failed', 5, 1, 4),
                 ('retry-hopeless', ${owner.id}, ${accountId}, 'groups', 'text', 'Hi', 'failed', 2, 0, 2)`,
    );
    await t.db.execute(
      sql`INSERT INTO message_job_recipients (job_id, session_id, chat_id, status, error) VALUES
            ('retry-mixed', ${accountId}, '919800000011@s.whatsapp.net', 'sent', NULL),
            ('retry-mixed', ${accountId}, '919800000012@s.whatsapp.net', 'failed', 'Not on WhatsApp'),
            ('retry-mixed', ${accountId}, '919800000013@s.whatsapp.net', 'failed', 'Opted out'),
            ('retry-mixed', ${accountId}, '919800000014@s.whatsapp.net', 'failed', 'Session is not connected'),
            ('retry-mixed', ${accountId}, '919800000015@s.whatsapp.net', 'failed', 'Interrupted: delivery unknown'),
            ('retry-hopeless', ${accountId}, '120363000000000011@g.us', 'failed', 'Only admins can send messages to this group'),
            ('retry-hopeless', ${accountId}, '120363000000000012@g.us', 'failed', 'Not a member of this group')`,
    );
    const retry = (jobId: string, payload: object = {}) => retryJob(t.app, ownerToken, jobId, payload);
    const states = async () =>
      (await recipientsOf(t.db, 'retry-mixed')).map((r) => [r.chatId.slice(0, 12), r.status, r.error]);

    const res = await retry('retry-mixed');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      message: 'Retrying 1 failed message',
      retried: 1,
      creditsCharged: 1,
    });
    expect(await states()).toEqual([
      ['919800000011', 'sent', null],
      ['919800000012', 'failed', 'Not on WhatsApp'],
      ['919800000013', 'failed', 'Opted out'],
      ['919800000014', 'queued', null],
      ['919800000015', 'failed', 'Interrupted: delivery unknown'],
    ]);
    // Only the one whose delivery is unknown is left: not without the user's word.
    const unconfirmed = await retry('retry-mixed');
    expect(unconfirmed.statusCode).toBe(400);
    expect(unconfirmed.json().message).toBe(
      'This message may have arrived already (delivery unknown): retry with includeDeliveryUnknown to send it again, accepting that a second copy may arrive',
    );
    expect(await balanceOf(t.db, owner.id)).toBe(9);
    const confirmed = await retry('retry-mixed', { includeDeliveryUnknown: true });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json()).toMatchObject({ retried: 1, creditsCharged: 1 });
    expect((await states())[4]).toEqual(['919800000015', 'queued', null]);
    expect(await jobRow(t.db, 'retry-mixed')).toMatchObject({ status: 'pending', failedCount: 2 });
    // Two credits, one per retried recipient.
    expect(await balanceOf(t.db, owner.id)).toBe(8);
    const rows = await t.db.select().from(creditLedger).where(eq(creditLedger.jobId, 'retry-mixed'));
    expect(rows.map((r) => [r.reason, r.delta])).toEqual([
      ['retry', -1],
      ['retry', -1],
    ]);

    // Nothing a retry may fix: 400, nothing charged, nothing requeued.
    const hopeless = await retry('retry-hopeless');
    expect(hopeless.statusCode).toBe(400);
    expect(hopeless.json()).toEqual({
      success: false,
      message:
        'None of the failed messages can succeed on a retry (not on WhatsApp, opted out, or only admins may send to the group)',
    });
    expect((await recipientsOf(t.db, 'retry-hopeless')).every((r) => r.status === 'failed')).toBe(true);
    expect(await jobRow(t.db, 'retry-hopeless')).toMatchObject({ status: 'failed', failedCount: 2 });
    expect(await balanceOf(t.db, owner.id)).toBe(8);
    await expectLedgerChain(t.db, owner.id);
  });
});
