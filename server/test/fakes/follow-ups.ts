import { sql } from 'drizzle-orm';
import { beforeAll } from 'vitest';
import { type DbKind, testAppFor } from '../helpers.ts';
import { accountOwner, buildJob } from './messaging.ts';

export const n = (i: number) => `91980003${String(i).padStart(4, '0')}`;
export const jid = (i: number) => `${n(i)}@s.whatsapp.net`;

/**
 * A one-to-one job whose recipients stand in every state a follow-up segment reads:
 * 1-2 sent without a receipt, 3 delivered, 4-5 read, 6 read and replied, 7 delivered and
 * replied, 8 failed retryable, 9 failed 'Not on WhatsApp', 10 queued, 11 cancelled.
 */
export async function jobOfOutcomes(
  t: { db: Parameters<typeof buildJob>[0]['db'] },
  userId: string,
  accountId: string,
  values: Parameters<typeof buildJob>[3] = {},
) {
  const jobId = await buildJob(t, userId, accountId, { audience: 'individuals', total: 11, ...values });
  const at = sql`now() - interval '1 hour'`;
  await t.db.execute(
    sql`INSERT INTO message_job_recipients (job_id, session_id, chat_id, status, delivered_at, read_at, replied_at, error) VALUES
      (${jobId}, ${accountId}, ${jid(1)}, 'sent', NULL, NULL, NULL, NULL),
      (${jobId}, ${accountId}, ${jid(2)}, 'sent', NULL, NULL, NULL, NULL),
      (${jobId}, ${accountId}, ${jid(3)}, 'sent', ${at}, NULL, NULL, NULL),
      (${jobId}, ${accountId}, ${jid(4)}, 'sent', ${at}, ${at}, NULL, NULL),
      (${jobId}, ${accountId}, ${jid(5)}, 'sent', ${at}, ${at}, NULL, NULL),
      (${jobId}, ${accountId}, ${jid(6)}, 'sent', ${at}, ${at}, ${at}, NULL),
      (${jobId}, ${accountId}, ${jid(7)}, 'sent', ${at}, NULL, ${at}, NULL),
      (${jobId}, ${accountId}, ${jid(8)}, 'failed', NULL, NULL, NULL, 'Session is not connected'),
      (${jobId}, ${accountId}, ${jid(9)}, 'failed', NULL, NULL, NULL, 'Not on WhatsApp'),
      (${jobId}, ${accountId}, ${jid(10)}, 'queued', NULL, NULL, NULL, NULL),
      (${jobId}, ${accountId}, ${jid(11)}, 'cancelled', NULL, NULL, NULL, NULL)`,
  );
  return jobId;
}

/**
 * A test app of `kind` and, before its tests, a user with a linked account (`o.token`,
 * `o.userId`, `o.sessionId`) and a job of outcomes (`o.jobId`, `jobOfOutcomes`).
 */
export function useJobOfOutcomes(kind: DbKind) {
  const users = new Set<string>();
  const t = testAppFor(kind, {}, users);
  const o = { token: '', userId: '', sessionId: '', jobId: '' };
  beforeAll(async () => {
    const owner = await accountOwner(t, { credits: 100, track: users });
    o.token = owner.token;
    o.sessionId = owner.accountId;
    o.userId = owner.user.id;
    o.jobId = await jobOfOutcomes(t, o.userId, o.sessionId);
  });
  return { t, users, o };
}
