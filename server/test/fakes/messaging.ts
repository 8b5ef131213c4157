import crypto from 'node:crypto';
import { asc, eq, sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { ledgerSum } from '../../src/credits/credits.ts';
import type { Db } from '../../src/db/client.ts';
import {
  accounts,
  creditLedger,
  messageJobRecipients,
  messageJobs,
  users,
  waGroups,
} from '../../src/db/schema.ts';
import type { App } from '../../src/http/types.ts';
import { newId } from '../../src/ids.ts';
import { account, bearer, type TestApp } from '../helpers.ts';
import { waitFor } from '../wait.ts';
import { createAccount } from './accounts.ts';

/** A user who can sign in (`account`'s options) and a session of theirs (buildSession's row). */
export async function accountOwner(t: TestApp, opts: Parameters<typeof account>[1] = {}) {
  const a = await account(t, opts);
  return { ...a, accountId: await buildAccount(t, a.user.id) };
}

/** A wa_sessions row the way the accounts service writes it; CONNECTED and leased to `ownerNode` by default. */
export async function buildAccount(
  t: { db: Db },
  userId: string,
  opts: { ownerNode?: string | null; status?: 'CONNECTED' | 'DISCONNECTED' | 'PENDING'; phone?: string } = {},
): Promise<string> {
  const phone = opts.phone ?? `91${crypto.randomInt(1_000_000_000, 9_999_999_999)}`;
  const accountId = `${phone}_${crypto.randomBytes(3).toString('hex')}`;
  await t.db.insert(accounts).values({
    id: crypto.randomUUID(),
    accountId,
    userId,
    phoneNumber: phone,
    name: 'Test session',
    status: opts.status ?? 'CONNECTED',
    ownerNode: opts.ownerNode ?? null,
    leaseExpiresAt: opts.ownerNode ? new Date(Date.now() + 3_600_000) : null,
  });
  return accountId;
}

/** A job row of `userId` on `sessionId` with no recipients: a text to groups, completed unless `values` say otherwise. */
export async function buildJob(
  t: { db: Db },
  userId: string,
  accountId: string,
  values: Partial<typeof messageJobs.$inferInsert> = {},
): Promise<string> {
  const id = newId();
  await t.db.insert(messageJobs).values({
    id,
    userId,
    accountId,
    audience: 'groups',
    messageType: 'text',
    content: 'hi',
    total: 0,
    status: 'completed',
    ...values,
  });
  return id;
}

export async function buildGroups(t: { db: Db }, accountId: string, sizes: number[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, size] of sizes.entries()) {
    const groupId = `1203630${crypto.randomInt(10_000_000, 99_999_999)}${i}@g.us`;
    ids.push(groupId);
    await t.db.insert(waGroups).values({
      accountId,
      groupId,
      subject: `Group ${i + 1}`,
      participants: Array.from({ length: size }, (_, k) => ({
        id: `91900000${String(k).padStart(4, '1')}@s.whatsapp.net`,
        phoneNumber: null,
        lid: null,
        admin: null,
      })),
    });
  }
  return ids;
}

/** Groups with the given ids in an account's list (subject = id): the group route sends only to listed groups. */
export async function buildNamedGroups(t: { db: Db }, accountId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await t.db
    .insert(waGroups)
    .values(ids.map((groupId) => ({ accountId, groupId, subject: groupId, participants: [] })))
    .onConflictDoNothing();
}

export async function balanceOf(db: Db, userId: string): Promise<number> {
  const [row] = await db.select({ credits: users.credits }).from(users).where(eq(users.id, userId));
  return row!.credits;
}

/** The invariant of ARCHITECTURE principle 2, checked after every test. */
export async function expectLedgerMatches(db: Db, userIds: Iterable<string>): Promise<void> {
  for (const id of userIds) {
    expect(await ledgerSum(db, id), `ledger of ${id}`).toBe(await balanceOf(db, id));
  }
}

/**
 * The user's ledger is a chain: each row's balance follows from the one before it (from 0), and
 * the last one is the balance now. Returns the rows, oldest first.
 */
export async function expectLedgerChain(db: Db, userId: string) {
  const rows = await db
    .select()
    .from(creditLedger)
    .where(eq(creditLedger.userId, userId))
    .orderBy(asc(creditLedger.id));
  let balance = 0;
  for (const row of rows) {
    balance += row.delta;
    expect(row.balanceAfter, `ledger row ${row.id} (${row.reason})`).toBe(balance);
  }
  expect(await balanceOf(db, userId), `balance of ${userId}`).toBe(balance);
  return rows;
}

export async function jobRow(db: Db, jobId: string) {
  const [row] = await db.select().from(messageJobs).where(eq(messageJobs.id, jobId));
  return row;
}

export async function recipientsOf(db: Db, jobId: string) {
  return db
    .select()
    .from(messageJobRecipients)
    .where(eq(messageJobRecipients.jobId, jobId))
    .orderBy(messageJobRecipients.id);
}

/**
 * For "held, not failed" checks in place of a sleep: returns once the engine has failed a job
 * queued now on an account that cannot send (a new user's account that never links) as waiting
 * longer than SESSION_WAIT_MS. Whatever waited since before this call has waited longer, through
 * at least one sweep. `track`: the ledgers checked after the test.
 */
export async function pastAccountWait(t: TestApp, track?: Set<string>): Promise<void> {
  const { user, token } = await account(t, { credits: 1, ...(track ? { track } : {}) });
  const accountId = await createAccount(t, token, {
    phoneNumber: `91${crypto.randomInt(6_000_000_000, 9_999_999_999)}`,
    sessionName: 'Never linked',
  });
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/session/${accountId}/sendIndividualMessage`,
    headers: bearer(token),
    payload: { chatIds: ['919899999999'], content: 'Waits for its account' },
  });
  if (res.statusCode !== 200) throw new Error(`the control job: ${res.statusCode} ${res.body}`);
  const jobId = res.json().jobId as string;
  expect(await waitForJobEnd(t.app, token, jobId)).toMatchObject({
    status: 'failed',
    results: { failed: 1 },
  });
  expect((await recipientsOf(t.db, jobId))[0]!.error).toBe('Session is not connected');
  expect(await balanceOf(t.db, user.id)).toBe(1);
}

/** Job Details' Retry Failed of the user `token` (`payload`: the account to send through, if another); the answer as it came. */
export const retryJob = (app: App, token: string, jobId: string, payload: object = {}) =>
  app.inject({
    method: 'POST',
    url: `/api/message-jobs-details/${jobId}/retry`,
    headers: bearer(token),
    payload,
  });

/** The job as Job Details shows it, without its media. */
export async function jobDetails(app: App, token: string, jobId: string) {
  const res = await app.inject({
    method: 'GET',
    url: `/api/message-jobs-details/${jobId}?media=0`,
    headers: bearer(token),
  });
  return res.json().job;
}

/** Waits until the job is completed or failed, through the API. */
export async function waitForJobEnd(app: App, token: string, jobId: string, timeoutMs = 20_000) {
  return waitFor(
    `job ${jobId} to end`,
    async () => {
      const job = await jobDetails(app, token, jobId);
      return job && (job.status === 'completed' || job.status === 'failed') ? job : null;
    },
    timeoutMs,
  );
}

export async function countRows(db: Db, table: 'credit_ledger' | 'media' | 'message_job_recipients') {
  const r = (await db.execute(sql.raw(`SELECT count(*)::int AS n FROM ${table}`))) as unknown as {
    rows: Array<{ n: number }>;
  };
  return r.rows[0]!.n;
}
