import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { creditLedger, media, messageJobs } from '../../src/db/schema.ts';
import { sha256 } from '../../src/ids.ts';
import { insertRecipients } from '../../src/messaging/accept/repository.ts';
import {
  accountOwner,
  balanceOf,
  buildGroups,
  buildNamedGroups,
  countRows,
  jobRow,
  recipientsOf,
} from '../fakes/messaging.ts';
import { bearer, DB_KINDS, testAppFor } from '../helpers.ts';

describe.each(DB_KINDS)('send API on %s', (kind) => {
  const users = new Set<string>();
  const t = testAppFor(kind, {}, users);

  async function setup(credits = 100, flags: { bulk?: boolean } = {}) {
    const owner = await accountOwner(t, {
      credits,
      isBulkMessagingEnabled: flags.bulk ?? true,
      track: users,
    });
    const { accountId } = owner;
    // The fake ids the tests send to are groups of this account's list.
    await buildNamedGroups(
      t,
      accountId,
      Array.from({ length: 6 }, (_, i) => `${i}@g.us`),
    );
    return owner;
  }

  const send = (token: string, accountId: string, payload: unknown, path = 'sendBulkMessage') =>
    t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/${path}`,
      headers: bearer(token),
      payload: payload as object,
    });

  it('gives the spec validation messages in the spec order', async () => {
    const { token, accountId } = await setup();
    const g = ['1@g.us', '2@g.us'];
    const cases: Array<[unknown, string]> = [
      [{ chatIds: [], type: 'string', content: '' }, 'Please select at least one group'],
      [{ type: 'poll', content: { pollName: '', pollOptions: [] } }, 'Please select at least one group'],
      [{ chatIds: ['  '], type: 'string', content: 'hi' }, 'Please select at least one group'],
      [{ chatIds: g, type: 'string', content: '   ', scheduleTime: 'nonsense' }, 'Please enter a message'],
      [{ chatIds: g, type: 'media', content: 'caption' }, 'Please select a file to send'],
      [
        { chatIds: g, type: 'poll', content: { pollName: ' ', pollOptions: ['a', 'b'] } },
        'Please enter a poll question',
      ],
      [
        { chatIds: g, type: 'poll', content: { pollName: 'Q?', pollOptions: ['a', '  ', ''] } },
        'Please add at least two poll options',
      ],
      [
        {
          chatIds: g,
          type: 'string',
          content: 'hi',
          scheduleTime: new Date(Date.now() - 60_000).toISOString(),
        },
        'Please select a valid future date and time',
      ],
      [
        { chatIds: g, type: 'string', content: 'hi', scheduleTime: 'not a date' },
        'Please select a valid future date and time',
      ],
    ];
    for (const [payload, message] of cases) {
      const res = await send(token, accountId, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toEqual({ success: false, message });
    }
    expect(await countRows(t.db, 'message_job_recipients')).toBe(0);
  });

  it('refuses polls beyond the limits of docs/decisions.md (Polls) with its texts, charging nothing; 12 options pass', async () => {
    const { user, token, accountId } = await setup(10);
    const g = ['1@g.us'];
    const poll = (pollName: string, pollOptions: string[]) => ({
      chatIds: g,
      type: 'poll',
      content: { pollName, pollOptions },
    });
    const twelve = Array.from({ length: 12 }, (_, i) => `Option ${i + 1}`);
    const cases: Array<[unknown, string]> = [
      [poll('Q?', [...twelve, 'Option 13']), 'A poll can have at most 12 options'],
      [poll('Q?', ['Yes', 'No', '  yes ']), 'Poll options must be different'],
      [poll('q'.repeat(256), ['Yes', 'No']), 'Poll question is too long'],
      [poll('Q?', ['Yes', 'n'.repeat(101)]), 'Poll option is too long'],
      // The question is checked first, then the count (the order of the validation texts before the limits).
      [poll(' ', [...twelve, 'Option 13']), 'Please enter a poll question'],
    ];
    for (const [payload, message] of cases) {
      const res = await send(token, accountId, payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(res.json()).toEqual({ success: false, message });
    }
    expect(await t.db.select().from(messageJobs).where(eq(messageJobs.userId, user.id))).toEqual([]);
    expect(await balanceOf(t.db, user.id)).toBe(10);

    // At the limits exactly: 12 options, a 255-character question, 100-character options.
    const res = await send(
      token,
      accountId,
      poll('q'.repeat(255), [...twelve.slice(0, 11), 'o'.repeat(100)]),
    );
    expect(res.statusCode).toBe(200);
    const job = await jobRow(t.db, res.json().jobId);
    const stored = JSON.parse(job!.content) as { pollName: string; pollOptions: string[] };
    expect(stored.pollName).toHaveLength(255);
    expect(stored.pollOptions).toHaveLength(12);
    expect(await balanceOf(t.db, user.id)).toBe(9);
  });

  it('accepts a text to groups: reserves one credit per distinct chat, one job, its recipients', async () => {
    const { user, token, accountId } = await setup(10);
    const groups = await buildGroups(t, accountId, [3, 5]);
    const res = await send(token, accountId, {
      chatIds: [groups[0], groups[1], groups[0], '5@g.us'],
      type: 'string',
      content: 'Hello groups',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ success: true, totalChats: 3 });
    expect(body.jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.message).toBe('Message sending initiated for 3 groups');
    expect(await balanceOf(t.db, user.id)).toBe(7);
    const job = await jobRow(t.db, body.jobId);
    expect(job).toMatchObject({ status: 'pending', total: 3, messageType: 'text', content: 'Hello groups' });
    const rs = await recipientsOf(t.db, body.jobId);
    expect(rs.map((r) => [r.chatId, r.chatName, r.status])).toEqual([
      [groups[0], 'Group 1', 'queued'],
      [groups[1], 'Group 2', 'queued'],
      ['5@g.us', '5@g.us', 'queued'],
    ]);
    const ledger = await t.db.select().from(creditLedger).where(eq(creditLedger.jobId, body.jobId));
    expect(ledger.map((l) => [l.delta, l.reason])).toEqual([[-3, 'send']]);
  });

  it('answers 404 for a session that is not the user’s, and 402 beyond the balance', async () => {
    const a = await setup(5);
    const b = await setup(5);
    const other = await send(a.token, b.accountId, { chatIds: ['1@g.us'], type: 'string', content: 'x' });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({ success: false, message: 'No active session found' });
    const missing = await send(a.token, 'nope_123', { chatIds: ['1@g.us'], type: 'string', content: 'x' });
    expect(missing.statusCode).toBe(404);

    const six = Array.from({ length: 6 }, (_, i) => `${i}@g.us`);
    const short = await send(a.token, a.accountId, { chatIds: six, type: 'string', content: 'x' });
    expect(short.statusCode).toBe(402);
    expect(short.json()).toEqual({
      success: false,
      message: 'Your Credit Balance is lower than the message count',
    });
    expect(await balanceOf(t.db, a.user.id)).toBe(5);
    const exact = await send(a.token, a.accountId, {
      chatIds: six.slice(0, 5),
      type: 'string',
      content: 'x',
    });
    expect(exact.statusCode).toBe(200);
    expect(await balanceOf(t.db, a.user.id)).toBe(0);
  });

  it('sends to numbers only with the bulk flag; numbers become <digits>@s.whatsapp.net; type inferred', async () => {
    const off = await setup(10, { bulk: false });
    const refused = await send(
      off.token,
      off.accountId,
      { chatIds: ['919876543210'], content: 'hi' },
      'sendIndividualMessage',
    );
    expect(refused.statusCode).toBe(403);
    expect(await balanceOf(t.db, off.user.id)).toBe(10);

    const on = await setup(10);
    const res = await send(
      on.token,
      on.accountId,
      { chatIds: ['919876543210', '919876543210@c.us', '+91 98765-43211'], content: 'Hello' },
      'sendIndividualMessage',
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().totalChats).toBe(2);
    const rs = await recipientsOf(t.db, res.json().jobId);
    expect(rs.map((r) => r.chatId)).toEqual(['919876543210@s.whatsapp.net', '919876543211@s.whatsapp.net']);
    expect((await jobRow(t.db, res.json().jobId))!.messageType).toBe('text');

    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');
    const mediaRes = await send(
      on.token,
      on.accountId,
      { chatIds: ['919876543212'], content: 'cap', mime: 'image/png', data: png.toString('base64') },
      'sendIndividualMessage',
    );
    expect(mediaRes.statusCode).toBe(200);
    const job = await jobRow(t.db, mediaRes.json().jobId);
    expect(job).toMatchObject({ messageType: 'media', mediaMime: 'image/png', content: 'cap' });

    const bad = await send(
      on.token,
      on.accountId,
      { chatIds: ['abc'], content: 'x' },
      'sendIndividualMessage',
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe('Invalid phone number: abc');
  });

  it('normalises media types, stores a file once, refuses files over 16 MB', async () => {
    const { token, accountId } = await setup(100);
    const data = Buffer.from('same file bytes').toString('base64');
    const cases: Array<[string, string]> = [
      ['image/webp', 'image/jpeg'],
      ['image/gif', 'image/gif'],
      ['video/quicktime', 'video/mp4'],
      ['audio/ogg', 'audio/mpeg'],
      ['application/pdf', 'application/octet-stream'],
    ];
    const before = await countRows(t.db, 'media');
    for (const [mime, stored] of cases) {
      const res = await send(token, accountId, {
        chatIds: ['1@g.us'],
        type: 'media',
        mime,
        data,
        fileName: 'f.bin',
      });
      expect(res.statusCode).toBe(200);
      const [row] = await t.db.select().from(messageJobs).where(eq(messageJobs.id, res.json().jobId));
      expect(row!.mediaMime).toBe(stored);
    }
    expect(await countRows(t.db, 'media')).toBe(before + 1);
    const [file] = await t.db
      .select()
      .from(media)
      .where(eq(media.id, sha256(Buffer.from('same file bytes'))));
    expect(file!.bytes.toString()).toBe('same file bytes');

    const big = Buffer.alloc(16 * 1024 * 1024 + 1, 7).toString('base64');
    const tooBig = await send(token, accountId, {
      chatIds: ['1@g.us'],
      type: 'media',
      mime: 'video/mp4',
      data: big,
    });
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json()).toEqual({ success: false, message: 'File is too large (max 16 MB)' });
    const exact = Buffer.alloc(16 * 1024 * 1024, 7).toString('base64');
    const ok = await send(token, accountId, {
      chatIds: ['1@g.us'],
      type: 'media',
      mime: 'video/mp4',
      data: exact,
    });
    expect(ok.statusCode).toBe(200);
  });

  it('stores a poll as its JSON text with blank options dropped', async () => {
    const { token, accountId } = await setup(10);
    const res = await send(token, accountId, {
      chatIds: ['1@g.us'],
      type: 'poll',
      content: {
        pollName: 'Lunch?',
        pollOptions: ['Yes', ' ', 'No'],
        options: { allowMultipleAnswers: true },
      },
    });
    expect(res.statusCode).toBe(200);
    const job = await jobRow(t.db, res.json().jobId);
    expect(JSON.parse(job!.content)).toEqual({
      pollName: 'Lunch?',
      pollOptions: ['Yes', 'No'],
      options: { allowMultipleAnswers: true },
    });
  });

  it('schedules a job: status scheduled, recipients due at the time', async () => {
    const { token, accountId } = await setup(10);
    const at = new Date(Date.now() + 3_600_000);
    const res = await send(token, accountId, {
      chatIds: ['1@g.us'],
      type: 'string',
      content: 'later',
      scheduleTime: at.toISOString(),
    });
    expect(res.statusCode).toBe(200);
    const job = await jobRow(t.db, res.json().jobId);
    expect(job).toMatchObject({ status: 'scheduled', isScheduled: true });
    expect(job!.scheduledAt!.getTime()).toBe(at.getTime());
    const [r] = await recipientsOf(t.db, res.json().jobId);
    expect(r!.dueAt.getTime()).toBe(at.getTime());
  });

  it('never overdraws: 30 concurrent sends of 5 race for a balance of 100', async () => {
    const { user, token, accountId } = await setup(100);
    await buildNamedGroups(
      t,
      accountId,
      Array.from({ length: 150 }, (_, n) => `${Math.floor(n / 5)}-${n % 5}@g.us`),
    );
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        send(token, accountId, {
          chatIds: Array.from({ length: 5 }, (_, k) => `${i}-${k}@g.us`),
          type: 'string',
          content: `race ${i}`,
        }),
      ),
    );
    const ok = results.filter((r) => r.statusCode === 200).length;
    const refused = results.filter((r) => r.statusCode === 402).length;
    expect(ok).toBe(20);
    expect(refused).toBe(10);
    expect(await balanceOf(t.db, user.id)).toBe(0);
    const jobs = await t.db.select().from(messageJobs).where(eq(messageJobs.userId, user.id));
    expect(jobs.length).toBe(20);
  });

  it('accepts 20,000 recipients in one request', async () => {
    const { user, token, accountId } = await setup(20_000);
    const chatIds = Array.from({ length: 20_000 }, (_, i) => `${9_100_000_000 + i}`);
    const res = await send(token, accountId, { chatIds, content: 'bulk' }, 'sendIndividualMessage');
    expect(res.statusCode).toBe(200);
    expect(res.json().totalChats).toBe(20_000);
    // In the order given, each whole (the ids reach the database as one joined text).
    const stored = await recipientsOf(t.db, res.json().jobId);
    expect(stored.map((r) => r.chatId)).toEqual(chatIds.map((c) => `91${c}@s.whatsapp.net`));
    expect(await balanceOf(t.db, user.id)).toBe(0);
  });

  it('stores every recipient whole, whatever its id and text hold', async () => {
    const jobId = `job-${Date.now()}`;
    const write = (chatIds: string[], contents: string[] | null) =>
      insertRecipients(
        t.db,
        { jobId, accountId: 'acc', dueAt: new Date(), price: 1 },
        chatIds,
        null,
        contents,
      );
    const ids = (n: number, from: number) =>
      Array.from({ length: n }, (_, i) => `${from + i}@s.whatsapp.net`);
    // Texts an array literal would quote or escape: quotes, commas, braces, a backslash, a newline.
    const plain = ['say "hi", {x}', 'back\\slash', 'line\nnext', 'NULL'];
    // The joined list's separator inside a text; an empty text.
    const odd = ['a\u001fb', ''];
    await write(ids(4, 1), plain);
    await write(ids(2, 5), odd);
    // An id with the separator, and one empty id alone.
    await write(['6\u001f7@g.us'], null);
    await write([''], ['only']);
    const rows = await recipientsOf(t.db, jobId);
    expect(rows.map((r) => [r.chatId, r.content])).toEqual([
      ...[...plain, ...odd].map((text, i) => [`${i + 1}@s.whatsapp.net`, text]),
      ['6\u001f7@g.us', null],
      ['', 'only'],
    ]);
  });
});
