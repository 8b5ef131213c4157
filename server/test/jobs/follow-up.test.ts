import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { createDueFollowUps } from '../../src/messaging/follow-up/scheduled.ts';
import { jid, jobOfOutcomes, n, useJobOfOutcomes } from '../fakes/follow-ups.ts';
import {
  accountOwner,
  balanceOf,
  buildJob,
  expectLedgerChain,
  jobRow,
  recipientsOf,
} from '../fakes/messaging.ts';
import { bearer, DB_KINDS } from '../helpers.ts';

const numbersOf = async (db: Parameters<typeof recipientsOf>[0], jobId: string) =>
  (await recipientsOf(db, jobId)).map((r) => r.chatId.split('@')[0]).sort();

describe.each(DB_KINDS)('follow-ups from a job’s outcomes (%s)', (kind) => {
  const { t, users, o } = useJobOfOutcomes(kind);

  const segments = (id: string, who = o.token) =>
    t.app.inject({ method: 'GET', url: `/api/message-jobs/${id}/segments`, headers: bearer(who) });
  const follow = (id: string, payload: object, who = o.token) =>
    t.app.inject({ method: 'POST', url: `/api/message-jobs/${id}/follow-up`, headers: bearer(who), payload });

  it('counts each segment exactly from the recipients’ states', async () => {
    const res = await segments(o.jobId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      segments: {
        not_delivered: 2,
        delivered_not_read: 1,
        read_not_replied: 2,
        replied: 2,
        failed_retryable: 1,
        not_replied: 5,
      },
      scheduled: [],
    });
  });

  it('another user’s job is not found; a group job or a Status post has no segments', async () => {
    const other = await accountOwner(t, { track: users });
    expect((await segments(o.jobId, other.token)).json()).toMatchObject({ message: 'Job not found' });
    const groups = await buildJob(t, o.userId, o.sessionId);
    const res = await segments(groups);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ message: 'A group job has no one-to-one segments to follow up' });
    const status = await buildJob(t, o.userId, o.sessionId, {
      audience: 'individuals',
      messageType: 'status',
    });
    expect((await segments(status)).json()).toMatchObject({
      message: 'A Status post has no one-to-one segments to follow up',
    });
  });

  it('a follow-up is a new job of the segment, charged one credit each, opted-out numbers left out uncharged', async () => {
    const optOut = await t.app.inject({
      method: 'POST',
      url: '/api/opt-outs',
      headers: bearer(o.token),
      payload: { phoneNumbers: [n(5)] },
    });
    expect(optOut.statusCode, optOut.body).toBe(200);
    const before = await balanceOf(t.db, o.userId);
    const res = await follow(o.jobId, {
      segment: 'read_not_replied',
      sessionId: o.sessionId,
      type: 'string',
      content: 'Did you see our offer?',
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      success: true,
      jobId: expect.any(String),
      recipients: 1,
      creditsCharged: 1,
      skipped: { optedOut: [n(5)] },
    });
    expect(await numbersOf(t.db, body.jobId)).toEqual([n(4)]);
    expect(await balanceOf(t.db, o.userId)).toBe(before - 1);
    const job = await jobRow(t.db, body.jobId);
    expect([job?.content, job?.audience, job?.status]).toEqual([
      'Did you see our offer?',
      'individuals',
      'pending',
    ]);
    await expectLedgerChain(t.db, o.userId);
  });

  it('failed_retryable takes only what a retry may fix; an empty segment is refused and charges nothing', async () => {
    const res = await follow(o.jobId, {
      segment: 'failed_retryable',
      sessionId: o.sessionId,
      content: 'Trying again',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await numbersOf(t.db, res.json().jobId)).toEqual([n(8)]);
    const empty = await buildJob(t, o.userId, o.sessionId, { audience: 'individuals', total: 0 });
    const before = await balanceOf(t.db, o.userId);
    const none = await follow(empty, { segment: 'replied', sessionId: o.sessionId, content: 'Thanks' });
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ message: 'No recipient of this job is in that segment' });
    const bad = await follow(o.jobId, { segment: 'everyone', sessionId: o.sessionId, content: 'x' });
    expect(bad.statusCode).toBe(400);
    expect(await balanceOf(t.db, o.userId)).toBe(before);
  });

  it('a scheduled follow-up takes the segment as it stands then: who replied or opted out meanwhile is not in it', async () => {
    const source = await jobOfOutcomes(t, o.userId, o.sessionId);
    const at = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const res = await follow(source, {
      segment: 'not_replied',
      sessionId: o.sessionId,
      content: 'Last chance',
      scheduleTime: at,
    });
    expect(res.statusCode, res.body).toBe(200);
    const { jobId: future, recipients } = res.json();
    expect(recipients).toBe(5);
    const before = await balanceOf(t.db, o.userId);
    // Nothing is charged or made before its time.
    expect(await jobRow(t.db, future)).toBeUndefined();
    expect((await segments(source)).json().scheduled).toEqual([
      { id: future, segment: 'not_replied', dueAt: at, state: 'waiting', jobId: null, error: null },
    ]);
    // Meanwhile number 1 replies and number 3 opts out; then the time comes.
    await t.db.execute(
      sql`UPDATE message_job_recipients SET replied_at = now() WHERE job_id = ${source} AND chat_id = ${jid(1)}`,
    );
    await t.app.inject({
      method: 'POST',
      url: '/api/opt-outs',
      headers: bearer(o.token),
      payload: { phoneNumbers: [n(3)] },
    });
    await t.db.execute(sql`UPDATE follow_ups SET due_at = now() - interval '1 second' WHERE id = ${future}`);
    expect(await createDueFollowUps(t.ctx)).toBe(1);
    // n(5) opted out in the test above.
    expect(await numbersOf(t.db, future)).toEqual([n(2), n(4)]);
    expect(await balanceOf(t.db, o.userId)).toBe(before - 2);
    expect((await jobRow(t.db, future))?.content).toBe('Last chance');
    // A second sweep makes nothing more.
    expect(await createDueFollowUps(t.ctx)).toBe(0);
    const [row] = await queryRows<{ state: string }>(
      t.db,
      sql`SELECT state FROM follow_ups WHERE id = ${future}`,
    );
    expect(row?.state).toBe('created');
    await expectLedgerChain(t.db, o.userId);
  });

  it('a scheduled follow-up the balance cannot pay is kept failed with the reason, charging nothing', async () => {
    const poor = await accountOwner(t, { credits: 1, track: users });
    const source = await jobOfOutcomes(t, poor.user.id, poor.accountId);
    const res = await follow(
      source,
      {
        segment: 'not_delivered',
        sessionId: poor.accountId,
        content: 'Hello again',
        scheduleTime: new Date(Date.now() + 60_000).toISOString(),
      },
      poor.token,
    );
    expect(res.statusCode, res.body).toBe(200);
    await t.db.execute(sql`UPDATE follow_ups SET due_at = now() WHERE id = ${res.json().jobId}`);
    await createDueFollowUps(t.ctx);
    const scheduled = (await segments(source, poor.token)).json().scheduled;
    expect(scheduled[0]).toMatchObject({
      state: 'failed',
      jobId: null,
      error: expect.stringMatching(/credit/i),
    });
    expect(await balanceOf(t.db, poor.user.id)).toBe(1);
  });

  it('a scheduled follow-up with a bad message or a past time is refused at once', async () => {
    const noText = await follow(o.jobId, {
      segment: 'not_replied',
      sessionId: o.sessionId,
      content: ' ',
      scheduleTime: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(noText.statusCode).toBe(400);
    const past = await follow(o.jobId, {
      segment: 'not_replied',
      sessionId: o.sessionId,
      content: 'Hi',
      scheduleTime: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(past.statusCode).toBe(400);
    const [row] = await queryRows<{ n: number }>(
      t.db,
      sql`SELECT count(*)::int AS n FROM follow_ups WHERE job_id = ${o.jobId}`,
    );
    expect(row?.n).toBe(0);
  });

  it('a segment saved as a contact list holds its numbers', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/message-jobs/${o.jobId}/segments/replied/contact-list`,
      headers: bearer(o.token),
      payload: { name: 'Replied to the sale' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const { listId, imported } = res.json();
    expect(imported).toBe(2);
    const rows = await queryRows<{ phone_number: string }>(
      t.db,
      sql`SELECT phone_number FROM contacts WHERE list_id = ${listId} ORDER BY position`,
    );
    expect(rows.map((r) => r.phone_number)).toEqual([n(6), n(7)]);
    const unnamed = await t.app.inject({
      method: 'POST',
      url: `/api/message-jobs/${o.jobId}/segments/replied/contact-list`,
      headers: bearer(o.token),
      payload: { name: '  ' },
    });
    expect(unnamed.json()).toMatchObject({ message: 'Enter a name for the contact list' });
  });
});
