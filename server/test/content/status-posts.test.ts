import crypto from 'node:crypto';
import { STATUS_TEXTS, viewedByText } from '@wa/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contactLists, contacts, creditLedger, optOuts } from '../../src/db/schema.ts';
import { readsMessages } from '../../src/transport/simulator/network.ts';
import { SIMULATOR_TIMINGS } from '../../src/transport/simulator/transport.ts';
import { balanceOf, jobDetails, jobRow, recipientsOf, waitForJobEnd } from '../fakes/messaging.ts';
import { appWithEngine, bearer, DB_KINDS, linkedAccount } from '../helpers.ts';
import { waitFor } from '../wait.ts';

/** The smallest PNG (1x1): the server sniffs the bytes to tell an image from a document. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
).toString('base64');

/** Status posts, through the API, the engine and the simulated network. */
describe.each(DB_KINDS)('status posts (%s)', (kind) => {
  const users = new Set<string>();
  const timings = { ...SIMULATOR_TIMINGS };
  beforeAll(() => {
    // Views sooner, so that they arrive within the test.
    SIMULATOR_TIMINGS.deliveredMs = 50;
    SIMULATOR_TIMINGS.readMs = 150;
  });
  afterAll(() => {
    Object.assign(SIMULATOR_TIMINGS, timings);
  });
  const { t } = appWithEngine(kind, { SIMULATOR_GROUPS: '0' }, users);

  async function list(userId: string, numbers: string[]): Promise<string> {
    const id = crypto.randomUUID();
    await t.db.insert(contactLists).values({ id, userId, name: `List ${id.slice(0, 4)}`, fields: ['name'] });
    await t.db
      .insert(contacts)
      .values(numbers.map((phoneNumber, position) => ({ listId: id, position, phoneNumber, fields: {} })));
    return id;
  }
  const post = (token: string, accountId: string, payload: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendStatus`,
      headers: bearer(token),
      payload,
    });
  const details = (token: string, jobId: string) => jobDetails(t.app, token, jobId);

  it('refuses a bad status with a clear error, before charging anything', async () => {
    const { user, token, accountId } = await linkedAccount(t, { credits: 10, track: users });
    const other = await linkedAccount(t, { credits: 10, track: users });
    const listId = await list(user.id, ['919811100001']);
    const otherList = await list(other.user.id, ['919811100002']);
    const text = { type: 'text', content: 'Sale today' };
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ ...text, audience: {} }, 400, STATUS_TEXTS.noAudience],
      [
        { ...text, audience: { contactListIds: [listId], everyoneMessaged: true } },
        400,
        STATUS_TEXTS.bothAudiences,
      ],
      [{ type: 'text', content: '  ', audience: { contactListIds: [listId] } }, 400, STATUS_TEXTS.noText],
      [
        { type: 'text', content: 'x'.repeat(701), audience: { contactListIds: [listId] } },
        400,
        STATUS_TEXTS.textTooLong,
      ],
      [
        { ...text, backgroundColor: 'orange', audience: { contactListIds: [listId] } },
        400,
        STATUS_TEXTS.badColour,
      ],
      [{ ...text, font: 4, audience: { contactListIds: [listId] } }, 400, STATUS_TEXTS.badFont],
      [
        {
          type: 'media',
          data: Buffer.from('%PDF-1.4 not a picture').toString('base64'),
          audience: { contactListIds: [listId] },
        },
        400,
        STATUS_TEXTS.notImageOrVideo,
      ],
      [{ ...text, audience: { everyoneMessaged: true } }, 400, STATUS_TEXTS.nobodyMessaged],
      [{ ...text, audience: { contactListIds: [otherList] } }, 404, 'Contact list not found'],
      [
        { ...text, scheduleTime: '2001-01-01T00:00:00Z', audience: { contactListIds: [listId] } },
        400,
        'Please select a valid future date and time',
      ],
    ];
    for (const [payload, status, message] of cases) {
      const res = await post(token, accountId, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(status);
      expect(res.json().message).toBe(message);
    }
    const noType = await post(token, accountId, { content: 'x', audience: { contactListIds: [listId] } });
    expect(noType.statusCode).toBe(400);
    expect(await balanceOf(t.db, user.id)).toBe(10);
  });

  it('answers a repeated post with the same Idempotency-Key with the first job, charged once; another post with that key is refused', async () => {
    const { user, token, accountId } = await linkedAccount(t, { credits: 10, track: users });
    const listId = await list(user.id, ['919811100021', '919811100022']);
    const payload = {
      type: 'text',
      content: 'Open till 9 today',
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
      audience: { contactListIds: [listId] },
    };
    const send = (body: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: `/api/session/${accountId}/sendStatus`,
        headers: { ...bearer(token), 'idempotency-key': 'status-retry-1' },
        payload: body,
      });
    const [first, second] = await Promise.all([send(payload), send(payload)]);
    expect(first.statusCode, first.body).toBe(200);
    expect(second.json()).toEqual(first.json());
    expect((await send(payload)).json().jobId).toBe(first.json().jobId);
    expect(await balanceOf(t.db, user.id)).toBe(8);
    const other = await send({ ...payload, content: 'Closed today' });
    expect(other.statusCode).toBe(409);
    expect(other.json().message).toBe('Idempotency-Key reused with a different request');
    expect(await balanceOf(t.db, user.id)).toBe(8);
  });

  it('posts a text status once to its audience: one credit a member, opted-out left out, not-on-WhatsApp refunded, views counted per viewer', async () => {
    const { user, token, accountId } = await linkedAccount(t, { credits: 20, track: users });
    const members = ['919812300011', '919812300012', '919812300013', '919812300014', '919812300015'];
    // 0000: not on WhatsApp on the simulated network; 919812300016 opted out.
    const listA = await list(user.id, [...members.slice(0, 3), '919812300000', '919812300016']);
    const listB = await list(user.id, [...members.slice(2)]);
    await t.db.insert(optOuts).values({ userId: user.id, phoneNumber: '919812300016', source: 'manual' });

    const res = await post(token, accountId, {
      type: 'text',
      content: 'New stock in store',
      backgroundColor: '#ff7a00',
      font: 8,
      audience: { contactListIds: [listA, listB] },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ totalChats: 6, skipped: { optedOut: ['919812300016'] } });
    const { jobId } = res.json();
    // Six members (each once though on two lists), charged at acceptance.
    expect(await balanceOf(t.db, user.id)).toBe(14);
    const row = await jobRow(t.db, jobId);
    expect(row).toMatchObject({
      messageType: 'status',
      statusStyle: { backgroundColor: '#FF7A00', font: 8 },
    });

    const job = await waitForJobEnd(t.app, token, jobId);
    // A job with a failed recipient ends failed (the engine's rule for every job).
    expect(job).toMatchObject({
      status: 'failed',
      messageType: 'status',
      results: { success: 5, failed: 1 },
    });
    // The one not on WhatsApp is refunded: five credits spent for five posted to.
    expect(await balanceOf(t.db, user.id)).toBe(15);
    const rows = await recipientsOf(t.db, jobId);
    const sent = rows.filter((r) => r.status === 'sent');
    expect(sent.map((r) => r.chatId).sort()).toEqual(members.map((m) => `${m}@s.whatsapp.net`));
    // One post: one message id for the whole audience.
    expect(new Set(sent.map((r) => r.messageId)).size).toBe(1);
    expect(rows.find((r) => r.status === 'failed')).toMatchObject({
      chatId: '919812300000@s.whatsapp.net',
      error: 'Not on WhatsApp',
    });

    // Each viewer's receipt marks only its own row: 'viewed by N of M'.
    const viewers = members.filter((m) => readsMessages(`${m}@s.whatsapp.net`));
    expect(viewers.length).toBeGreaterThan(0);
    expect(viewers.length).toBeLessThan(members.length);
    const viewed = await waitFor('the views', async () => {
      const j = await details(token, jobId);
      return j.delivery.read === viewers.length && j.delivery.delivered === members.length ? j : null;
    });
    expect(viewedByText(viewed.delivery.read, viewed.results.success)).toBe(
      `Viewed by ${viewers.length} of 5`,
    );
    const readRows = (await recipientsOf(t.db, jobId)).filter((r) => r.readAt !== null).map((r) => r.chatId);
    expect(readRows.sort()).toEqual(viewers.map((m) => `${m}@s.whatsapp.net`));
    expect(viewed.statusStyle).toEqual({ backgroundColor: '#FF7A00', font: 8 });

    // The MIS export says status and counts the views in its Read column.
    const csv = await t.app.inject({
      method: 'GET',
      url: `/api/message-jobs/${user.id}/export.csv`,
      headers: bearer(token),
    });
    const line = csv.body.split('\n').find((l) => l.startsWith(jobId))!;
    expect(line).toContain(`,status,New stock in st...,Partly sent,5,${viewers.length},`);

    // Everyone messaged: the five it posted to.
    const count = await t.app.inject({
      method: 'GET',
      url: `/api/session/${accountId}/status-audience`,
      headers: bearer(token),
    });
    expect(count.json()).toEqual({ everyoneMessaged: 5 });
  });

  it('posts a large audience as one post under one id, and an image status to everyone messaged, scheduled', async () => {
    const { user, token, accountId } = await linkedAccount(t, { credits: 2000, track: users });
    const n = 540;
    const numbers = Array.from({ length: n }, (_, i) => `9198124${String(i + 1).padStart(5, '0')}`);
    const listId = await list(user.id, numbers);
    const big = await post(token, accountId, {
      type: 'text',
      content: 'Big news',
      audience: { contactListIds: [listId] },
    });
    expect(big.statusCode, big.body).toBe(200);
    const bigJob = await waitForJobEnd(t.app, token, big.json().jobId, 30_000);
    expect(bigJob.results).toMatchObject({ success: n, failed: 0 });
    const rows = await recipientsOf(t.db, big.json().jobId);
    const perPost = new Map<string, number>();
    for (const r of rows) perPost.set(r.messageId!, (perPost.get(r.messageId!) ?? 0) + 1);
    // One post to the whole audience, as WhatsApp has a Status: every member under its one id.
    expect([...perPost.values()]).toEqual([n]);
    expect(await balanceOf(t.db, user.id)).toBe(2000 - n);

    const at = new Date(Date.now() + 1500).toISOString();
    const image = await post(token, accountId, {
      type: 'media',
      data: PNG,
      mime: 'image/png',
      content: 'Our new shop',
      scheduleTime: at,
      audience: { everyoneMessaged: true },
    });
    expect(image.statusCode, image.body).toBe(200);
    expect(image.json().message).toBe(`Status scheduled for ${n} contacts at ${at}`);
    expect((await details(token, image.json().jobId)).status).toBe('scheduled');
    const done = await waitForJobEnd(t.app, token, image.json().jobId, 30_000);
    expect(done).toMatchObject({
      status: 'completed',
      messageType: 'status',
      mediaMime: 'image/png',
      messageContent: 'Our new shop',
    });
    expect(done.results.success).toBe(n);
    expect(await balanceOf(t.db, user.id)).toBe(2000 - 2 * n);
    const ledger = await t.db.select().from(creditLedger);
    expect(
      ledger
        .filter((l) => l.userId === user.id && l.jobId === image.json().jobId)
        .reduce((s, l) => s + l.delta, 0),
    ).toBe(-n);
  });
});
