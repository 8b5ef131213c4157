import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { addCredits, debitCredits, ledgerSum } from '../../src/credits/credits.ts';
import { creditLedger, messageJobs } from '../../src/db/schema.ts';
import { acceptSend } from '../../src/messaging/accept/send.ts';
import { findUserById } from '../../src/users/repository.ts';
import { balanceOf, buildAccount, buildNamedGroups, countRows } from '../fakes/messaging.ts';
import { buildUser, DB_KINDS, testAppFor } from '../helpers.ts';

describe.each(DB_KINDS)('credits on %s', (kind) => {
  const t = testAppFor(kind);

  it('20 parallel debits of 10 against 100: exactly 10 succeed, balance 0, ledger sums to it', async () => {
    const user = await buildUser(t, { credits: 0 });
    await addCredits(t.db, user.id, 100, 'grant');
    const results = await Promise.all(
      Array.from({ length: 20 }, () => debitCredits(t.db, user.id, 10, 'send')),
    );
    expect(results.filter((r) => r !== null).length).toBe(10);
    expect(results.filter((r) => r === null).length).toBe(10);
    expect(await balanceOf(t.db, user.id)).toBe(0);
    expect(await ledgerSum(t.db, user.id)).toBe(0);
    const rows = await t.db.select().from(creditLedger).where(eq(creditLedger.userId, user.id));
    expect(rows.filter((r) => r.reason === 'send').length).toBe(10);
    // Each row's balance_after is a balance the account really had, all different.
    expect(new Set(rows.filter((r) => r.reason === 'send').map((r) => r.balanceAfter)).size).toBe(10);
  });

  it('refunds add a ledger row and never leave the ledger and balance apart', async () => {
    const user = await buildUser(t, { credits: 0 });
    await addCredits(t.db, user.id, 5, 'grant');
    expect(await debitCredits(t.db, user.id, 6, 'send')).toBeNull();
    expect(await debitCredits(t.db, user.id, 5, 'send', { jobId: 'j1' })).toBe(0);
    expect(await addCredits(t.db, user.id, 2, 'refund', { jobId: 'j1' })).toBe(2);
    expect(await ledgerSum(t.db, user.id)).toBe(2);
    expect(await balanceOf(t.db, user.id)).toBe(2);
  });

  it('accepts nothing when any part of the acceptance fails: no debit, no job, no recipient', async () => {
    const user = await buildUser(t, { credits: 0 });
    await addCredits(t.db, user.id, 10, 'grant');
    const accountId = await buildAccount(t, user.id);
    const recipientsBefore = await countRows(t.db, 'message_job_recipients');
    await buildNamedGroups(t, accountId, ['ok@g.us']);
    // PostgreSQL text cannot hold a NUL character: the job insert fails after the debit.
    // (The HTTP layer refuses NUL earlier, so the service is called directly.)
    const row = (await findUserById(t.db, user.id))!;
    await expect(
      acceptSend(
        t.ctx,
        row,
        accountId,
        { chatIds: ['ok@g.us'], type: 'string', content: 'bad\u0000text' },
        'groups',
      ),
    ).rejects.toThrow();
    expect(await balanceOf(t.db, user.id)).toBe(10);
    expect(await ledgerSum(t.db, user.id)).toBe(10);
    expect(await t.db.select().from(messageJobs).where(eq(messageJobs.userId, user.id))).toEqual([]);
    expect(await countRows(t.db, 'message_job_recipients')).toBe(recipientsBefore);
  });
});
