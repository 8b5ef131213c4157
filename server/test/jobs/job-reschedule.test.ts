import { describe, expect, it } from 'vitest';
import { balanceOf, jobRow, recipientsOf, waitForJobEnd } from '../fakes/messaging.ts';
import { appWithEngine, bearer, buildUser, DB_KINDS, linkedAccount, loginToken } from '../helpers.ts';

// A scheduled job that has not started can be moved; credits stay as reserved.
describe.each(DB_KINDS)('moving a scheduled job on %s', (kind) => {
  const { t } = appWithEngine(kind, { SIMULATOR_LINK_AFTER_MS: '3600000' });
  const account = (credits: number) => linkedAccount(t, { credits });

  async function schedule(token: string, accountId: string, at: Date, extra: object = {}) {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(token),
      payload: {
        chatIds: ['919800099001', '919800099002'],
        content: 'Later',
        scheduleTime: at.toISOString(),
        ...extra,
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().jobId as string;
  }

  const move = (token: string, jobId: string, scheduleTime: string) =>
    t.app.inject({
      method: 'PATCH',
      url: `/api/message-jobs-details/${jobId}`,
      headers: bearer(token),
      payload: { scheduleTime },
    });

  it('moves the job and its recipients to the new time; the credits stay reserved, not twice', async () => {
    const { user, token, accountId } = await account(5);
    const jobId = await schedule(token, accountId, new Date(Date.now() + 3_600_000));
    expect(await balanceOf(t.db, user.id)).toBe(3);
    const later = new Date(Date.now() + 7_200_000);
    const res = await move(token, jobId, later.toISOString());
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ success: true, message: `Job moved to ${later.toISOString()}` });
    expect((await jobRow(t.db, jobId)).scheduledAt?.toISOString()).toBe(later.toISOString());
    const recipients = await recipientsOf(t.db, jobId);
    expect(recipients.map((r) => r.dueAt.toISOString())).toEqual([later.toISOString(), later.toISOString()]);
    expect(await balanceOf(t.db, user.id)).toBe(3);
  });

  it('moved to soon, it is sent then', async () => {
    const { token, accountId } = await account(5);
    const jobId = await schedule(token, accountId, new Date(Date.now() + 3_600_000));
    const res = await move(token, jobId, new Date(Date.now() + 1500).toISOString());
    expect(res.statusCode, res.body).toBe(200);
    const job = await waitForJobEnd(t.app, token, jobId);
    expect(job.status).toBe('completed');
  });

  it('refuses a past time, a started job, a series, and another user', async () => {
    const { token, accountId } = await account(10);
    const jobId = await schedule(token, accountId, new Date(Date.now() + 3_600_000));
    const past = await move(token, jobId, new Date(Date.now() - 60_000).toISOString());
    expect(past.statusCode).toBe(400);
    expect(past.json().message).toBe('Please select a valid future date and time');

    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(token),
      payload: { chatIds: ['919800099003'], content: 'Now' },
    });
    const now = sent.json().jobId as string;
    await waitForJobEnd(t.app, token, now);
    const started = await move(token, now, new Date(Date.now() + 3_600_000).toISOString());
    expect(started.statusCode).toBe(409);
    expect(started.json().message).toBe('Only a scheduled job that has not started can be moved');

    const series = await schedule(token, accountId, new Date(Date.now() + 3_600_000), {
      repeat: { every: 'week' },
    });
    const repeat = await move(token, series, new Date(Date.now() + 7_200_000).toISOString());
    expect(repeat.statusCode).toBe(400);

    const other = await buildUser(t, { credits: 0 });
    const stranger = await move(
      await loginToken(t.app, other.username),
      jobId,
      new Date(Date.now() + 7_200_000).toISOString(),
    );
    expect(stranger.statusCode).toBe(404);
  });
});
