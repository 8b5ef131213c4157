import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { addCredits } from '../../src/credits/credits.ts';
import { nextOccurrenceAfter, occurrenceAt } from '../../src/messaging/series/occurrences.ts';
import { balanceOf, jobRow, recipientsOf, waitForJobEnd } from '../fakes/messaging.ts';
import { appWithEngine, bearer, DB_KINDS, linkedAccount } from '../helpers.ts';
import { waitFor } from '../wait.ts';

describe('occurrence times', () => {
  it('come back on the same UTC clock; a month from the 31st is the last day of a shorter month', () => {
    const anchor = new Date('2027-01-31T04:30:00.000Z');
    expect(occurrenceAt(anchor, 'day', 2).toISOString()).toBe('2027-02-02T04:30:00.000Z');
    expect(occurrenceAt(anchor, 'week', 1).toISOString()).toBe('2027-02-07T04:30:00.000Z');
    expect(occurrenceAt(anchor, 'month', 1).toISOString()).toBe('2027-02-28T04:30:00.000Z');
    expect(occurrenceAt(anchor, 'month', 2).toISOString()).toBe('2027-03-31T04:30:00.000Z');
    expect(occurrenceAt(anchor, 'month', 13).toISOString()).toBe('2028-02-29T04:30:00.000Z');
  });

  it('skip the occurrences missed while no node ran', () => {
    const anchor = new Date('2027-01-31T04:30:00.000Z');
    const after = new Date('2027-05-10T00:00:00.000Z');
    expect(nextOccurrenceAfter(anchor, 'day', after).toISOString()).toBe('2027-05-10T04:30:00.000Z');
    expect(nextOccurrenceAfter(anchor, 'week', after).toISOString()).toBe('2027-05-16T04:30:00.000Z');
    expect(nextOccurrenceAfter(anchor, 'month', after).toISOString()).toBe('2027-05-31T04:30:00.000Z');
    // Exactly at an occurrence: the one after it.
    expect(nextOccurrenceAfter(anchor, 'month', anchor).toISOString()).toBe('2027-02-28T04:30:00.000Z');
  });
});

const numbers = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `9198${30_001_001 + from + i}`);
const DAY = 86_400_000;

describe.each(DB_KINDS)('recurring jobs on %s', (kind) => {
  const users = new Set<string>();
  // Due occurrences are started at every sweep (about 1 s), not every 5 s: the test waits for three.
  const { t } = appWithEngine(kind, { SIMULATOR_LINK_AFTER_MS: '3600000' }, users, {
    dispatcher: { occurrenceCheckMs: 0 },
  });

  const owner = (credits: number, phone: string) => linkedAccount(t, { credits, phone, track: users });
  const post = (token: string, url: string, payload?: unknown) =>
    t.app.inject({ method: 'POST', url, headers: bearer(token), ...(payload ? { payload } : {}) });
  const list = async (token: string, userId: string, status: string) =>
    (
      await t.app.inject({
        method: 'GET',
        url: `/api/message-jobs/${userId}?status=${status}`,
        headers: bearer(token),
      })
    ).json().jobs as Array<{
      id: string;
      status: string;
      scheduledTime: string | null;
      statusReason: string | null;
      progress: { total: number };
      repeat?: { seriesId: string; every: string; until: string | null; active: boolean } | null;
    }>;
  /** Brings the series' next occurrence to now, as if `days` had passed. */
  const daysPass = (seriesId: string, days: number) =>
    t.db.transaction(async (tx) => {
      await tx.execute(
        sql`UPDATE message_job_series SET anchor_at = anchor_at - ${`${days} days`}::interval,
                                          until = until - ${`${days} days`}::interval
            WHERE id = ${seriesId}`,
      );
      await tx.execute(
        sql`UPDATE message_jobs SET scheduled_at = scheduled_at - ${`${days} days`}::interval
            WHERE series_id = ${seriesId} AND awaiting_start`,
      );
    });

  it('refuses a repeat without a schedule time, an until before it, an unknown rhythm, and a short balance', async () => {
    const { user, token, accountId } = await owner(2, '919700003001');
    const url = `/api/session/${accountId}/sendIndividualMessage`;
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const cases: Array<[unknown, number, string]> = [
      [{ repeat: { every: 'week' } }, 400, 'A repeating message needs a schedule time'],
      [
        { scheduleTime: at, repeat: { every: 'week', until: new Date(Date.now() + 60_000).toISOString() } },
        400,
        'repeat.until must be a date and time after scheduleTime',
      ],
      [
        { scheduleTime: at, repeat: { every: 'week', until: 'soon' } },
        400,
        'repeat.until must be a date and time after scheduleTime',
      ],
      [{ scheduleTime: at, repeat: { every: 'year' } }, 400, "repeat.every must be 'day', 'week' or 'month'"],
      [
        { scheduleTime: at, repeat: { every: 'day' }, chatIds: numbers(3) },
        402,
        'Your Credit Balance is lower than the message count',
      ],
    ];
    for (const [extra, status, message] of cases) {
      const res = await post(token, url, {
        chatIds: numbers(2),
        content: 'Weekly news',
        ...(extra as object),
      });
      expect([res.statusCode, res.json().message]).toEqual([status, message]);
    }
    expect(await list(token, user.id, 'all')).toEqual([]);
    expect(await balanceOf(t.db, user.id)).toBe(2);
  });

  it('reserves each occurrence when it starts, records a short balance as a failed job, and ends after until', async () => {
    const { user, token, accountId } = await owner(5, '919700003002');
    const first = new Date(Date.now() + 1500);
    const until = new Date(first.getTime() + 15 * DAY);
    const sent = await post(token, `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: numbers(3, 10),
      content: 'Weekly news',
      scheduleTime: first.toISOString(),
      repeat: { every: 'week', until: until.toISOString() },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    const firstId = sent.json().jobId as string;
    // Nothing is reserved before the occurrence starts; it is listed under Scheduled as a series.
    expect(await balanceOf(t.db, user.id)).toBe(5);
    const scheduled = await list(token, user.id, 'scheduled');
    expect(scheduled.map((j) => [j.id, j.progress.total, j.repeat])).toEqual([
      [firstId, 3, { seriesId: expect.any(String), every: 'week', until: until.toISOString(), active: true }],
    ]);
    const seriesId = scheduled[0]!.repeat!.seriesId;

    const done = await waitForJobEnd(t.app, token, firstId);
    expect(done.status).toBe('completed');
    expect(done.results.success).toBe(3);
    expect(await balanceOf(t.db, user.id)).toBe(2);
    // The next occurrence awaits its start, a week after the first.
    const second = (await list(token, user.id, 'scheduled'))[0]!;
    expect(second.id).not.toBe(firstId);
    expect(second.scheduledTime).toBe(new Date(first.getTime() + 7 * DAY).toISOString());
    expect(await recipientsOf(t.db, second.id)).toEqual([]);

    // A week later the balance (2) is short of 3: a failed job with the 402 text, nothing charged.
    await daysPass(seriesId, 7);
    const failed = await waitForJobEnd(t.app, token, second.id);
    expect(failed).toMatchObject({
      status: 'failed',
      statusReason: 'Your Credit Balance is lower than the message count',
      results: { success: 0, failed: 3 },
    });
    expect((await recipientsOf(t.db, second.id)).map((r) => [r.status, r.error])).toEqual(
      Array(3).fill(['failed', 'Your Credit Balance is lower than the message count']),
    );
    expect(await balanceOf(t.db, user.id)).toBe(2);

    // The third (day 14) is still before until (day 15); after it, none.
    const third = await waitFor('the third occurrence', async () =>
      (await list(token, user.id, 'scheduled')).find((j) => j.id !== second.id),
    );
    await addCredits(t.db, user.id, 3, 'grant', { actorId: user.id });
    await daysPass(seriesId, 7);
    expect((await waitForJobEnd(t.app, token, third.id)).status).toBe('completed');
    expect(await balanceOf(t.db, user.id)).toBe(2);
    await waitFor(
      'the series to end',
      async () =>
        (await jobRow(t.db, third.id)) && (await list(token, user.id, 'all'))[0]?.repeat?.active === false,
    );
    expect(await list(token, user.id, 'scheduled')).toEqual([]);
    expect((await list(token, user.id, 'all')).map((j) => j.status)).toEqual([
      'completed',
      'failed',
      'completed',
    ]);
  });

  it('cancels as a series: the occurrence awaiting start goes, no other starts; only the owner may', async () => {
    const { user, token, accountId } = await owner(10, '919700003003');
    const other = await owner(0, '919700003004');
    const sent = await post(token, `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: numbers(2, 20),
      content: 'Daily',
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
      repeat: { every: 'day' },
    });
    const jobId = sent.json().jobId as string;
    const stranger = await post(other.token, `/api/message-jobs-details/${jobId}/cancel-series`);
    expect(stranger.statusCode).toBe(404);

    const cancelled = await post(token, `/api/message-jobs-details/${jobId}/cancel-series`);
    expect(cancelled.json()).toEqual({ success: true, message: 'Series cancelled' });
    expect(await jobRow(t.db, jobId)).toBeUndefined();
    expect(await list(token, user.id, 'all')).toEqual([]);
    expect(await balanceOf(t.db, user.id)).toBe(10);

    // Deleting the occurrence awaiting start ends its series too.
    const again = await post(token, `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds: numbers(2, 20),
      content: 'Daily again',
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
      repeat: { every: 'month' },
    });
    const againId = again.json().jobId as string;
    const seriesId = (await jobRow(t.db, againId))!.seriesId!;
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/message-jobs-details/${againId}`,
      headers: bearer(token),
    });
    expect(del.statusCode).toBe(200);
    const rows = (await t.db.execute(
      sql`SELECT ended_at FROM message_job_series WHERE id = ${seriesId}`,
    )) as unknown as {
      rows: Array<{ ended_at: unknown }>;
    };
    expect(rows.rows[0]!.ended_at).not.toBeNull();
    expect(await list(token, user.id, 'all')).toEqual([]);
  });
});
