import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { accounts } from '../../src/db/schema.ts';
import { RestrictionTracker } from '../../src/transport/baileys/restrictions.ts';
import { restrictionSteps } from '../../src/transport/restriction-steps.ts';
import type { QuotaUpdate } from '../../src/transport/types.ts';
import { buildAccount } from '../fakes/messaging.ts';
import { buildUser, DB_KINDS, testAppFor } from '../helpers.ts';

const MIN = 60_000;
const RETRY = { first: 15 * MIN, max: 8 * 60 * MIN };

/**
 * A 463 with no end given pauses new chats for a time that doubles with each 463
 * in a row. The count is kept in the account's row, so that the node that takes the account over
 * (or this one after a restart: a new transport, a new tracker) goes on growing it.
 */
describe.each(DB_KINDS)('the growing pause of 463s across nodes on %s', (kind) => {
  const t = testAppFor(kind);

  const account = async () => buildAccount(t, (await buildUser(t)).id);
  /** A node's tracker of the account: what the Baileys transport builds for it. */
  const node = (accountId: string) => {
    const reports: QuotaUpdate[] = [];
    const tracker = new RestrictionTracker(
      (q) => reports.push(q),
      60_000,
      RETRY,
      restrictionSteps(t.db, accountId),
    );
    return { tracker, reports };
  };
  const minutesFromNow = (d: Date) => Math.round((d.getTime() - Date.now()) / MIN);
  const stored = async (accountId: string) =>
    (
      await t.db
        .select({ steps: accounts.restrictionSteps, at: accounts.restrictionStepAt })
        .from(accounts)
        .where(eq(accounts.accountId, accountId))
    )[0]!;

  it('a second node, and a restart, go on from the count the first reached', async () => {
    const accountId = await account();
    const a = node(accountId);
    expect(minutesFromNow(await a.tracker.restricted463())).toBe(15);
    expect(a.reports.at(-1)).toMatchObject({
      capped: true,
      reason: 'Paused: WhatsApp restricted this account from starting new chats (error 463)',
    });
    // A 463 of a send made before the pause steps nothing.
    expect(minutesFromNow(await a.tracker.restricted463())).toBe(15);
    expect((await stored(accountId)).steps).toBe(1);

    // Node A is gone; node B owns the account now: its first 463 is the second in a row.
    const b = node(accountId);
    expect(minutesFromNow(await b.tracker.restricted463())).toBe(30);
    // A restart of B (a new tracker): the third.
    const restarted = node(accountId);
    expect(minutesFromNow(await restarted.tracker.restricted463())).toBe(60);
    expect((await stored(accountId)).steps).toBe(3);
  });

  it('two 463s at once on one node step once each, in turn', async () => {
    const accountId = await account();
    const a = node(accountId);
    const both = await Promise.all([a.tracker.restricted463(), a.tracker.restricted463()]);
    // The second waited for the first and found the account paused by it: one step.
    expect(both.map(minutesFromNow)).toEqual([15, 15]);
    expect((await stored(accountId)).steps).toBe(1);
  });

  it('a day without a 463 starts the count again; the growth stops at its maximum', async () => {
    const accountId = await account();
    await t.db
      .update(accounts)
      .set({ restrictionSteps: 9, restrictionStepAt: sql`now() - interval '2 hours'` })
      .where(eq(accounts.accountId, accountId));
    // 15 min × 2^9 is past the maximum of 8 hours.
    expect(minutesFromNow(await node(accountId).tracker.restricted463())).toBe(8 * 60);
    await t.db
      .update(accounts)
      .set({ restrictionStepAt: sql`now() - interval '25 hours'` })
      .where(eq(accounts.accountId, accountId));
    expect(minutesFromNow(await node(accountId).tracker.restricted463())).toBe(15);
    expect((await stored(accountId)).steps).toBe(1);
  });
});
