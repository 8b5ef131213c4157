import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { creditLedger } from '../../src/db/schema.ts';
import { balanceOf, expectLedgerChain, jobRow, recipientsOf, waitForJobEnd } from '../fakes/messaging.ts';
import { appWithEngine, bearer, DB_KINDS, linkedAccount } from '../helpers.ts';

// A job that has not started can be edited (time, text, recipients); the
// credits held follow the recipients exactly, each change with its ledger row.
describe.each(DB_KINDS)('editing a job that has not started on %s', (kind) => {
  const { t } = appWithEngine(kind, { SIMULATOR_LINK_AFTER_MS: '3600000', SECRET_KEY: 'cd'.repeat(32) });
  const account = (credits: number) => linkedAccount(t, { credits });

  async function send(token: string, accountId: string, payload: object) {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
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
    const { user, token, accountId } = await account(10);
    const jobId = await send(token, accountId, {
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
      url: `/api/simulator/sessions/${accountId}/outbox`,
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
    const { user, token, accountId } = await account(5);
    const jobId = await send(token, accountId, {
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

  it('a scheduled poll takes a new poll and a media job a new file; each then goes as edited', async () => {
    const { user, token, accountId } = await account(10);
    const soon = () => new Date(Date.now() + 4_000).toISOString();
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const pollJob = await send(token, accountId, {
      chatIds: ['919800095001'],
      type: 'poll',
      content: { pollName: 'Old question?', pollOptions: ['Yes', 'No'] },
      scheduleTime: later,
    });
    const fileJob = await send(token, accountId, {
      chatIds: ['919800095002'],
      type: 'media',
      content: 'The caption',
      mime: 'text/plain',
      data: Buffer.from('old file').toString('base64'),
      fileName: 'old.txt',
      scheduleTime: later,
    });

    // Wrong kind of edit, or a poll a send would refuse: 400, the job unchanged.
    const textOnPoll = await edit(token, pollJob, { content: 'Plain text' });
    expect(textOnPoll.statusCode).toBe(400);
    expect(textOnPoll.json().message).toBe('Only a poll job takes a poll');
    const fileOnPoll = await edit(token, pollJob, {
      data: Buffer.from('x').toString('base64'),
      mime: 'text/plain',
    });
    expect(fileOnPoll.json().message).toBe('Only a media job takes a file');
    const oneOption = await edit(token, pollJob, { poll: { pollName: 'New?', pollOptions: ['Only one'] } });
    expect(oneOption.statusCode).toBe(400);
    expect((await jobRow(t.db, pollJob))!.content).toContain('Old question?');

    const polled = await edit(token, pollJob, {
      scheduleTime: soon(),
      poll: {
        pollName: ' New question? ',
        pollOptions: ['Red', ' ', 'Blue', 'Green'],
        options: { allowMultipleAnswers: true },
      },
    });
    expect(polled.statusCode, polled.body).toBe(200);
    expect(polled.json()).toMatchObject({ total: 1, creditsCharged: 0 });
    const stored = {
      pollName: 'New question?',
      pollOptions: ['Red', 'Blue', 'Green'],
      options: { allowMultipleAnswers: true },
    };
    expect(await jobRow(t.db, pollJob)).toMatchObject({ content: JSON.stringify(stored), poll: stored });

    const filed = await edit(token, fileJob, {
      scheduleTime: soon(),
      content: 'New caption',
      data: Buffer.from('%PDF-1.4 the new file').toString('base64'),
      mime: 'application/pdf',
      fileName: 'new.pdf',
    });
    expect(filed.statusCode, filed.body).toBe(200);
    // A document keeps the generic type, as a send stores it; the name says which file it is.
    expect(await jobRow(t.db, fileJob)).toMatchObject({
      content: 'New caption',
      mediaMime: 'application/octet-stream',
      fileName: 'new.pdf',
    });

    expect((await waitForJobEnd(t.app, token, pollJob)).status).toBe('completed');
    expect((await waitForJobEnd(t.app, token, fileJob)).status).toBe('completed');
    const outbox = await t.app.inject({
      method: 'GET',
      url: `/api/simulator/sessions/${accountId}/outbox`,
      headers: bearer(token),
    });
    const sent = outbox.json().messages as Array<Record<string, unknown>>;
    expect(sent.find((m) => m.chatId === '919800095001@s.whatsapp.net')).toMatchObject({
      type: 'poll',
      poll: { name: 'New question?', options: ['Red', 'Blue', 'Green'], allowMultipleAnswers: true },
    });
    expect(sent.find((m) => m.chatId === '919800095002@s.whatsapp.net')).toMatchObject({
      type: 'media',
      caption: 'New caption',
      fileName: 'new.pdf',
      size: '%PDF-1.4 the new file'.length,
    });
    expect(await balanceOf(t.db, user.id)).toBe(8);
    await expectLedgerChain(t.db, user.id);
  });

  it('refuses: short of credits (402, nothing changed), a started job (409), another user (404), bad input (400)', async () => {
    const { user, token, accountId } = await account(3);
    const jobId = await send(token, accountId, {
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
    expect(nothing.json().message).toBe('Give a new time, text, file, poll or recipients');

    const other = await account(5);
    expect((await edit(other.token, jobId, { content: 'Mine now' })).statusCode).toBe(404);

    const now = await send(token, accountId, { chatIds: ['919800096009'], content: 'Now' });
    await waitForJobEnd(t.app, token, now);
    const started = await edit(token, now, { content: 'Too late' });
    expect(started.statusCode).toBe(409);
    expect(started.json().message).toBe('Only a scheduled or paused job that has not started can be edited');
    await expectLedgerChain(t.db, user.id);
  });

  it('new recipients pass the rules of a new send: an erased or opted-out number is left out, and without consent when the user must have it', async () => {
    const { user, token, accountId } = await account(10);
    const jobId = await send(token, accountId, {
      chatIds: ['919800098101', '919800098102'],
      content: 'Offer',
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const erased = await t.app.inject({
      method: 'DELETE',
      url: '/api/contacts/by-phone/919800098103',
      headers: bearer(token),
    });
    expect(erased.statusCode, erased.body).toBe(200);
    const optOut = await t.app.inject({
      method: 'POST',
      url: '/api/opt-outs',
      headers: bearer(token),
      payload: { phoneNumbers: ['919800098104'] },
    });
    expect(optOut.statusCode, optOut.body).toBe(200);

    const res = await edit(token, jobId, { chatIds: ['919800098101', '919800098103', '919800098104'] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      total: 1,
      creditsCharged: -1,
      skipped: { optedOut: ['919800098103', '919800098104'] },
    });
    const held = async () => (await recipientsOf(t.db, jobId)).map((r) => r.chatId);
    expect(await held()).toEqual(['919800098101@s.whatsapp.net']);
    expect(await balanceOf(t.db, user.id)).toBe(9);

    const onlyErased = await edit(token, jobId, { chatIds: ['919800098103'] });
    expect(onlyErased.statusCode).toBe(400);
    expect(onlyErased.json().message).toBe('Every recipient has opted out');

    await t.db.execute(sql`UPDATE users SET consent_required = true WHERE id = ${user.id}`);
    const noConsent = await edit(token, jobId, { chatIds: ['919800098101', '919800098105'] });
    expect(noConsent.statusCode).toBe(400);
    expect(noConsent.json().message).toBe('No recipient has consent to receive messages');
    expect(await held()).toEqual(['919800098101@s.whatsapp.net']);
    expect(await balanceOf(t.db, user.id)).toBe(9);
    await expectLedgerChain(t.db, user.id);
  });
});
