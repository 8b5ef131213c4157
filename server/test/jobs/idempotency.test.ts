import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { messageJobs } from '../../src/db/schema.ts';
import { accountOwner, balanceOf } from '../fakes/messaging.ts';
import { bearer, DB_KINDS, testAppFor } from '../helpers.ts';

/** Idempotency-Key on both send routes: a repeat answers the first job and charges nothing again. */
describe.each(DB_KINDS)('Idempotency-Key on the send routes (%s)', (kind) => {
  const users = new Set<string>();
  const t = testAppFor(kind, {}, users);

  async function setup(credits = 100) {
    return accountOwner(t, { credits, track: users });
  }

  const send = (token: string, accountId: string, payload: object, key?: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: { ...bearer(token), ...(key === undefined ? {} : { 'idempotency-key': key }) },
      payload,
    });

  const jobsOf = async (userId: string) =>
    t.db.select({ id: messageJobs.id }).from(messageJobs).where(eq(messageJobs.userId, userId));

  it('answers a repeat with the same key and body with the first job, charging once', async () => {
    const { user, token, accountId } = await setup(10);
    const body = { chatIds: ['919800000001', '919800000002'], content: 'Order shipped' };
    const first = await send(token, accountId, body, 'click-1');
    const second = await send(token, accountId, body, 'click-1');
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual(first.json());
    expect(await jobsOf(user.id)).toHaveLength(1);
    expect(await balanceOf(t.db, user.id)).toBe(8);
  });

  it('answers the first job to concurrent duplicates: one job, one charge', async () => {
    const { user, token, accountId } = await setup(10);
    const body = { chatIds: ['919800000011', '919800000012', '919800000013'], content: 'Sale today' };
    const answers = await Promise.all(Array.from({ length: 5 }, () => send(token, accountId, body, 'dup')));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.json().jobId)).size).toBe(1);
    expect(await jobsOf(user.id)).toHaveLength(1);
    expect(await balanceOf(t.db, user.id)).toBe(7);
  });

  it('refuses the same key with another body with 409 and sends nothing', async () => {
    const { user, token, accountId } = await setup(10);
    await send(token, accountId, { chatIds: ['919800000021'], content: 'One' }, 'k');
    const other = await send(token, accountId, { chatIds: ['919800000021'], content: 'Two' }, 'k');
    expect(other.statusCode).toBe(409);
    expect(other.json()).toEqual({
      success: false,
      message: 'Idempotency-Key reused with a different request',
    });
    expect(await jobsOf(user.id)).toHaveLength(1);
    expect(await balanceOf(t.db, user.id)).toBe(9);
  });

  it('sends again without a key, with another key, or with a key older than 24 hours', async () => {
    const { user, token, accountId } = await setup(10);
    const body = { chatIds: ['919800000031'], content: 'Hi' };
    await send(token, accountId, body);
    await send(token, accountId, body);
    await send(token, accountId, body, 'a');
    await send(token, accountId, body, 'b');
    await t.db.execute(
      sql`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE user_id = ${user.id} AND key = 'a'`,
    );
    const again = await send(token, accountId, body, 'a');
    expect(again.statusCode).toBe(200);
    expect(await jobsOf(user.id)).toHaveLength(5);
    expect(await balanceOf(t.db, user.id)).toBe(5);
  });

  it('keeps keys per user: another user may use the same key', async () => {
    const a = await setup(5);
    const b = await setup(5);
    const body = { chatIds: ['919800000041'], content: 'Hi' };
    const ra = await send(a.token, a.accountId, body, 'shared');
    const rb = await send(b.token, b.accountId, body, 'shared');
    expect(ra.json().jobId).not.toBe(rb.json().jobId);
    expect(await balanceOf(t.db, a.user.id)).toBe(4);
    expect(await balanceOf(t.db, b.user.id)).toBe(4);
  });

  it('answers a repeat after the balance ran out with the first job, not 402', async () => {
    const { user, token, accountId } = await setup(1);
    const body = { chatIds: ['919800000051'], content: 'Last credit' };
    const first = await send(token, accountId, body, 'last');
    const repeat = await send(token, accountId, body, 'last');
    expect(repeat.statusCode).toBe(200);
    expect(repeat.json().jobId).toBe(first.json().jobId);
    expect(await balanceOf(t.db, user.id)).toBe(0);
  });

  it('refuses a malformed key with a clear message', async () => {
    const { token, accountId } = await setup(5);
    const res = await send(token, accountId, { chatIds: ['919800000061'], content: 'Hi' }, 'x'.repeat(300));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Idempotency-Key must be 1 to 255 visible ASCII characters');
  });
});
