import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { createDueFollowUps } from '../../src/messaging/follow-up/scheduled.ts';
import { jobOfOutcomes, n, useJobOfOutcomes } from '../fakes/follow-ups.ts';
import { balanceOf, expectLedgerChain, jobRow } from '../fakes/messaging.ts';
import { bearer, buildAdmin, buildUser, DB_KINDS, loginToken } from '../helpers.ts';

const DAY_MS = 86_400_000;
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe.each(DB_KINDS)('scheduled follow-ups: their time, a file or a poll, cancelling (%s)', (kind) => {
  const { t, users, o } = useJobOfOutcomes(kind);

  const follow = (id: string, payload: object, who = o.token) =>
    t.app.inject({ method: 'POST', url: `/api/message-jobs/${id}/follow-up`, headers: bearer(who), payload });
  const cancel = (id: string, followUpId: string, who = o.token) =>
    t.app.inject({
      method: 'POST',
      url: `/api/message-jobs/${id}/follow-ups/${followUpId}/cancel`,
      headers: bearer(who),
    });
  const scheduledOf = async (id: string) =>
    (
      await t.app.inject({ method: 'GET', url: `/api/message-jobs/${id}/segments`, headers: bearer(o.token) })
    ).json().scheduled as Array<{ id: string; state: string; dueAt: string }>;
  const stateOf = async (id: string) =>
    (await queryRows<{ state: string }>(t.db, sql`SELECT state FROM follow_ups WHERE id = ${id}`))[0]?.state;
  const makeDue = (id: string) =>
    t.db.execute(sql`UPDATE follow_ups SET due_at = now() - interval '1 second' WHERE id = ${id}`);
  const later = (payload: object = {}) =>
    follow(o.jobId, {
      segment: 'not_replied',
      sessionId: o.sessionId,
      content: 'Still interested?',
      afterDays: 3,
      ...payload,
    });

  it('"after N days" of a job scheduled for later counts from its scheduled time, not from now, and moves with it', async () => {
    const sendAt = new Date(Date.now() + 5 * DAY_MS);
    sendAt.setMilliseconds(0);
    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/session/${o.sessionId}/sendIndividualMessage`,
      headers: bearer(o.token),
      payload: { chatIds: [n(1), n(2)], content: 'Sale on Friday', scheduleTime: sendAt.toISOString() },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    const scheduledJob = sent.json().jobId as string;
    const res = await follow(scheduledJob, {
      segment: 'not_replied',
      sessionId: o.sessionId,
      content: 'Did you come to the sale?',
      afterDays: 2,
    });
    expect(res.statusCode, res.body).toBe(200);
    const due = new Date(sendAt.getTime() + 2 * DAY_MS).toISOString();
    expect(res.json()).toMatchObject({ success: true, scheduledAt: due });
    expect(await scheduledOf(scheduledJob)).toEqual([
      expect.objectContaining({ state: 'waiting', dueAt: due }),
    ]);

    // A time before the job is sent is refused, and nothing is kept.
    const early = await follow(scheduledJob, {
      segment: 'not_replied',
      sessionId: o.sessionId,
      content: 'Too early',
      scheduleTime: new Date(sendAt.getTime() - 60_000).toISOString(),
    });
    expect(early.statusCode).toBe(400);
    expect(early.json()).toMatchObject({ message: 'The follow-up time must be after the job is sent' });
    expect(await scheduledOf(scheduledJob)).toHaveLength(1);

    // The job moved a day later: its follow-up moves with it.
    const moved = await t.app.inject({
      method: 'PATCH',
      url: `/api/message-jobs-details/${scheduledJob}`,
      headers: bearer(o.token),
      payload: { scheduleTime: new Date(sendAt.getTime() + DAY_MS).toISOString() },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect((await scheduledOf(scheduledJob))[0]?.dueAt).toBe(
      new Date(sendAt.getTime() + 3 * DAY_MS).toISOString(),
    );
  });

  it('"after N days" of a job already sent counts from now', async () => {
    const before = Date.now();
    const res = await later({ afterDays: 2 });
    expect(res.statusCode, res.body).toBe(200);
    const at = new Date(res.json().scheduledAt).getTime();
    expect(at).toBeGreaterThanOrEqual(before + 2 * DAY_MS);
    expect(at).toBeLessThan(Date.now() + 2 * DAY_MS + 1);
    const both = await later({ scheduleTime: new Date(Date.now() + DAY_MS).toISOString() });
    expect(both.json()).toMatchObject({ message: 'Give either scheduleTime or afterDays, not both' });
    expect((await later({ afterDays: 0 })).statusCode).toBe(400);
  });

  it('a file follow-up is kept and sent as a media job when its time comes', async () => {
    const res = await later({
      content: 'Our new catalogue',
      data: PNG,
      mime: 'image/png',
      fileName: 'catalogue.png',
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().jobId as string;
    const balance = await balanceOf(t.db, o.userId);
    await makeDue(id);
    expect(await createDueFollowUps(t.ctx)).toBeGreaterThanOrEqual(1);
    const job = await jobRow(t.db, id);
    expect([job?.messageType, job?.mediaMime, job?.fileName, job?.content, job?.total]).toEqual([
      'media',
      'image/png',
      'catalogue.png',
      'Our new catalogue',
      5,
    ]);
    const [media] = await queryRows<{ bytes: number }>(
      t.db,
      sql`SELECT octet_length(bytes) AS bytes FROM media WHERE id = ${job!.mediaId}`,
    );
    expect(Number(media?.bytes)).toBe(Buffer.from(PNG, 'base64').length);
    expect(await balanceOf(t.db, o.userId)).toBe(balance - 5);
    await expectLedgerChain(t.db, o.userId);
  });

  it('a poll follow-up sent now is a poll job, charged as a send', async () => {
    const balance = await balanceOf(t.db, o.userId);
    const res = await follow(o.jobId, {
      segment: 'replied',
      sessionId: o.sessionId,
      type: 'poll',
      content: {
        pollName: 'Which day?',
        pollOptions: ['Friday', 'Sunday'],
        options: { allowMultipleAnswers: false },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ recipients: 2, creditsCharged: 2 });
    const job = await jobRow(t.db, res.json().jobId);
    expect(job?.messageType).toBe('poll');
    expect(job?.poll).toMatchObject({ pollName: 'Which day?', pollOptions: ['Friday', 'Sunday'] });
    expect(await balanceOf(t.db, o.userId)).toBe(balance - 2);
  });

  it('the owner cancels a waiting follow-up: no job is made when its time comes, nothing is charged', async () => {
    const id = (await later()).json().jobId as string;
    const balance = await balanceOf(t.db, o.userId);
    const res = await cancel(o.jobId, id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ success: true, message: 'Follow-up cancelled' });
    expect((await scheduledOf(o.jobId)).find((f) => f.id === id)?.state).toBe('cancelled');
    await makeDue(id);
    await createDueFollowUps(t.ctx);
    expect(await jobRow(t.db, id)).toBeUndefined();
    expect(await stateOf(id)).toBe('cancelled');
    expect(await balanceOf(t.db, o.userId)).toBe(balance);
    const again = await cancel(o.jobId, id);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ message: 'This follow-up is already cancelled' });
  });

  it('another user, and the admin who manages the owner, cannot cancel it: it still waits', async () => {
    const id = (await later()).json().jobId as string;
    const stranger = await buildUser(t);
    users.add(stranger.id);
    const admin = await buildAdmin(t);
    users.add(admin.id);
    await t.db.execute(sql`UPDATE users SET managed_by = ${admin.id} WHERE id = ${o.userId}`);
    for (const who of [stranger, admin]) {
      const res = await cancel(o.jobId, id, await loginToken(t.app, who.username));
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ message: 'Job not found' });
    }
    expect(await stateOf(id)).toBe('waiting');
  });

  it('once its time has come, or once made into a job, a follow-up cannot be cancelled; an unknown one is not found', async () => {
    const id = (await later()).json().jobId as string;
    await makeDue(id);
    const due = await cancel(o.jobId, id);
    expect(due.statusCode).toBe(409);
    expect(due.json()).toMatchObject({
      message: 'This follow-up is being sent now: it can no longer be cancelled',
    });
    await createDueFollowUps(t.ctx);
    expect(await stateOf(id)).toBe('created');
    expect((await cancel(o.jobId, id)).json()).toMatchObject({
      message: 'This follow-up has been sent already: it can no longer be cancelled',
    });
    expect(await jobRow(t.db, id)).toBeDefined();
    // A follow-up is cancelled through its own job only.
    const other = await jobOfOutcomes(t, o.userId, o.sessionId);
    const missing = await cancel(other, id);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ message: 'Follow-up not found' });
  });
});
