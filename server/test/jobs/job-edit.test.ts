import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { creditLedger } from '../../src/db/schema.ts';
import { balanceOf, expectLedgerChain, jobRow, recipientsOf, waitForJobEnd } from '../fakes/messaging.ts';
import { appWithEngine, bearer, DB_KINDS, linkedSession } from '../helpers.ts';

// A job that has not started can be edited (time, text, recipients); the
// credits held follow the recipients exactly, each change with its ledger row.
describe.each(DB_KINDS)('editing a job that has not started on %s', (kind) => {
  const { t } = appWithEngine(kind, { SIMULATOR_LINK_AFTER_MS: '3600000' });
  const account = (credits: number) => linkedSession(t, { credits });

  async function send(token: string, sessionId: string, payload: object) {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/session/${sessionId}/sendIndividualMessage`,
      headers: bearer(token),
      payload,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().jobId as string;
  }

  const edit = (token: string, jobId: string, payload: object) =>
    t.app.inject({
      method: 'PATCH',
      url: `/api/message-jobs-details/${jobId}`,
      headers: bearer(token),
      payload,
    });

  const ledgerOf = async (jobId: string) =>
    (await t.db.select().from(creditLedger).where(eq(creditLedger.jobId, jobId))).map((r) => [
      r.reason,
      r.delta,
    ]);

  it('more recipients: the difference is charged; new text and time; then it sends the new text to them', async () => {
    const { user, token, sessionId } = await account(10);
    const jobId = await send(token, sessionId, {
      chatIds: ['919800098001', '919800098002'],
      content: 'Old text',
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(await balanceOf(t.db, user.id)).toBe(8);
    const soon = new Date(Date.now() + 4_000);
    const res = await edit(token, jobId, {
      scheduleTime: soon.toISOString(),
      content: 'New text',
      chatIds: ['919800098001', '919800098003', '919800098004', '919800098005'],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ success: true, message: 'Job updated', total: 4, creditsCharged: 2 });
    expect(await balanceOf(t.db, user.id)).toBe(6);
    expect(await ledgerOf(jobId)).toEqual([
      ['send', -2],
      ['send', -2],
    ]);
    expect(await jobRow(t.db, jobId)).toMatchObject({ content: 'New text', total: 4, status: 'scheduled' });
    expect((await jobRow(t.db, jobId))!.scheduledAt!.getTime()).toBe(soon.getTime());
    expect((await recipientsOf(t.db, jobId)).map((r) => r.chatId)).toEqual([
      '919800098001@s.whatsapp.net',
      '919800098003@s.whatsapp.net',
      '919800098004@s.whatsapp.net',
      '919800098005@s.whatsapp.net',
    ]);
    const done = await waitForJobEnd(t.app, token, jobId);
    expect(done.status).toBe('completed');
    expect(done.results).toMatchObject({ success: 4, failed: 0 });
    const outbox = await t.app.inject({
      method: 'GET',
      url: `/api/simulator/sessions/${sessionId}/outbox`,
      headers: bearer(token),
    });
    const sent = outbox.json().messages as Array<{ chatId: string; text?: string; content?: unknown }>;
    expect(sent.map((m) => m.chatId).sort()).toEqual([
      '919800098001@s.whatsapp.net',
      '919800098003@s.whatsapp.net',
      '919800098004@s.whatsapp.net',
      '919800098005@s.whatsapp.net',
    ]);
    expect(JSON.stringify(sent)).toContain('New text');
    expect(JSON.stringify(sent)).not.toContain('Old text');
    await expectLedgerChain(t.db, user.id);
  });

  it('fewer recipients: the difference is refunded with a ledger row; a paused job stays paused', async () => {
    const { user, token, sessionId } = await account(5);
    const jobId = await send(token, sessionId, {
      chatIds: ['919800097001', '919800097002', '919800097003'],
      content: 'Hello',
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const pause = await t.app.inject({
      method: 'POST',
      url: `/api/message-jobs-details/${jobId}/pause`,
      headers: bearer(token),
    });
    expect(pause.statusCode, pause.body).toBe(200);
    const res = await edit(token, jobId, { content: 'Hello again', chatIds: ['919800097002'] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ total: 1, creditsCharged: -2 });
    expect(await balanceOf(t.db, user.id)).toBe(4);
    expect(await ledgerOf(jobId)).toEqual([
      ['send', -3],
      ['refund', 2],
    ]);
    expect(await jobRow(t.db, jobId)).toMatchObject({ status: 'paused', total: 1, content: 'Hello again' });
    await expectLedgerChain(t.db, user.id);
  });

  it('refuses: short of credits (402, nothing changed), a started job (409), another user (404), bad input (400)', async () => {
    const { user, token, sessionId } = await account(3);
    const jobId = await send(token, sessionId, {
      chatIds: ['919800096001', '919800096002'],
      content: 'Hi',
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const short = await edit(token, jobId, {
      chatIds: ['919800096001', '919800096002', '919800096003', '919800096004'],
    });
    expect(short.statusCode).toBe(402);
    expect(short.json().message).toBe('Your Credit Balance is lower than the message count');
    expect(await balanceOf(t.db, user.id)).toBe(1);
    expect((await recipientsOf(t.db, jobId)).length).toBe(2);
    expect(await jobRow(t.db, jobId)).toMatchObject({ content: 'Hi', total: 2 });

    const blank = await edit(token, jobId, { content: '   ' });
    expect(blank.statusCode).toBe(400);
    const past = await edit(token, jobId, {
      content: 'x',
      scheduleTime: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(past.statusCode).toBe(400);
    const nothing = await edit(token, jobId, {});
    expect(nothing.statusCode).toBe(400);
    expect(nothing.json().message).toBe('Give a new time, text or recipients');

    const other = await account(5);
    expect((await edit(other.token, jobId, { content: 'Mine now' })).statusCode).toBe(404);

    const now = await send(token, sessionId, { chatIds: ['919800096009'], content: 'Now' });
    await waitForJobEnd(t.app, token, now);
    const started = await edit(token, now, { content: 'Too late' });
    expect(started.statusCode).toBe(409);
    expect(started.json().message).toBe('Only a scheduled or paused job that has not started can be edited');
    await expectLedgerChain(t.db, user.id);
  });
});
