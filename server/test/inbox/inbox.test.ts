import { WEBHOOK_PAYLOADS } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { keepIncoming } from '../../src/messaging/inbox/incoming.ts';
import { joinPerson } from '../../src/messaging/opt-outs.ts';
import { connectedAccount } from '../fakes/accounts.ts';
import { useCloudApp } from '../fakes/cloud-rig.ts';
import { balanceOf, expectLedgerChain, waitForJobEnd } from '../fakes/messaging.ts';
import { account, bearer, DB_KINDS } from '../helpers.ts';
import { waitFor } from '../wait.ts';

const BSUID = 'IN.13491208655302761071';
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

/**
 * The Inbox as a user sees it, with a Cloud number (the simulated Graph API) and a linked phone
 * (the simulated network) of one user, the engine running: one thread per person across both
 * kinds of account, the 24-hour window, answers charged exactly, opt-outs, unread, done and
 * reopen, files, the message.received webhook, and nothing of another user's.
 */
describe.each(DB_KINDS)('the Inbox on %s', (kind) => {
  const rig = useCloudApp(kind, { ALLOW_PRIVATE_WEBHOOKS: 'true' });
  let phoneSeq = 919811200000;

  /** A user with a Cloud number and a linked phone. */
  async function twoAccounts(credits = 20) {
    const a = await rig.cloudAccount(credits);
    phoneSeq += 1;
    const linked = await connectedAccount(rig.t, a.token, String(phoneSeq));
    return { ...a, cloud: a.accountId, linked };
  }
  const get = (token: string, url: string) =>
    rig.t.app.inject({ method: 'GET', url, headers: bearer(token) });
  const list = async (token: string, query = '') => {
    const res = await get(token, `/api/inbox${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { threads: Array<Record<string, unknown>>; nextCursor: string | null };
  };
  const inbound = (token: string, accountId: string, payload: object) =>
    rig.post(token, `/api/simulator/sessions/${accountId}/inbound`, payload);

  it('keeps one thread per person across a Cloud number and a linked phone, joined when Meta shows the number beside the BSUID', async () => {
    const a = await twoAccounts();
    const PHONE = '919811100071';
    const hook = await rig.post(a.token, '/api/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      events: ['message.received'],
    });
    expect(hook.statusCode, hook.body).toBe(200);

    // Meera writes to the Cloud number hidden behind her BSUID, and to the linked phone from her number.
    rig.fake.sendInbound(PHONE, 'Hello from Cloud', 'Meera', { userId: BSUID, hidden: true });
    expect((await inbound(a.token, a.linked, { from: PHONE, text: 'Hi from my phone' })).statusCode).toBe(
      200,
    );
    await waitFor('two threads', async () => (await list(a.token)).threads.length === 2);

    // Meta names her number beside her BSUID: one person, one thread. (A second later: Meta's
    // time is whole seconds, read as the end of that second.)
    await new Promise((r) => setTimeout(r, 1100));
    rig.fake.sendInbound(PHONE, 'It is me', 'Meera', { userId: BSUID });
    const threads = await waitFor('one thread', async () => {
      const l = await list(a.token);
      return l.threads.length === 1 && l.threads[0]!.unread === 3 ? l.threads : null;
    });
    expect(threads[0]).toMatchObject({
      name: 'Meera',
      phone: PHONE,
      unread: 3,
      state: 'open',
      sessionId: a.cloud,
      optedOut: false,
      lastMessage: { text: 'It is me', direction: 'in', type: 'text' },
    });
    expect(Date.parse(threads[0]!.windowClosesAt as string)).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    expect((await get(a.token, '/api/inbox/counts')).json()).toEqual({ success: true, unreadThreads: 1 });

    const personId = threads[0]!.personId as string;
    const opened = (await get(a.token, `/api/inbox/${personId}`)).json();
    const shown = opened.messages.map((m: { text: string; sessionId: string; direction: string }) =>
      [m.direction, m.sessionId, m.text].join(' '),
    );
    // Meta's time is whole seconds (read as the end of that second): the first two may show either way round.
    expect(shown.slice(0, 2).sort()).toEqual(
      [`in ${a.cloud} Hello from Cloud`, `in ${a.linked} Hi from my phone`].sort(),
    );
    expect(shown[2]).toBe(`in ${a.cloud} It is me`);
    // Opening it read it.
    expect((await get(a.token, '/api/inbox/counts')).json().unreadThreads).toBe(0);
    expect((await list(a.token)).threads[0]!.unread).toBe(0);

    // Each message queued one message.received event, in the contract's shape.
    const events = await queryRows<{ data: unknown }>(
      rig.t.db,
      sql`SELECT d.data FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
          WHERE w.user_id = ${a.user.id} AND d.event = 'message.received' ORDER BY d.id`,
    );
    const payloads = events.map((e) => WEBHOOK_PAYLOADS['message.received'].parse(e.data));
    expect(payloads.map((p) => [p.sessionId, p.from, p.text, p.type, p.jobId])).toEqual(
      expect.arrayContaining([
        [a.cloud, BSUID, 'Hello from Cloud', 'text', null],
        [a.linked, PHONE, 'Hi from my phone', 'text', null],
        [a.cloud, PHONE, 'It is me', 'text', null],
      ]),
    );
    expect(payloads).toHaveLength(3);
    expect(new Set(payloads.map((p) => p.personId)).size).toBeGreaterThanOrEqual(1);
  });

  it('answers free-form through a Cloud number only inside the window (a template after it), a linked phone any time; credits exact', async () => {
    const a = await twoAccounts(20);
    const PHONE = '919811100072';
    rig.fake.sendInbound(PHONE, 'Is it in stock?', 'Ravi');
    const personId = await waitFor(
      'the thread',
      async () => (await list(a.token)).threads[0]?.personId as string,
    );
    const reply = (payload: object) => rig.post(a.token, `/api/inbox/${personId}/reply`, payload);

    const inside = await reply({ sessionId: a.cloud, type: 'string', content: 'Yes, 4 left' });
    expect(inside.statusCode, inside.body).toBe(200);
    const jobId = inside.json().jobId as string;
    expect(inside.json().creditsCharged).toBe(1);
    await waitFor('the answer sent', async () =>
      rig.fake.sends.some((s) => s.to === PHONE && s.body.text?.body === 'Yes, 4 left'),
    );

    // The window closes (her message was 25 hours ago): free-form is refused, nothing charged.
    await rig.t.db.execute(
      sql`UPDATE cloud_service_windows SET last_inbound_at = now() - interval '25 hours' WHERE session_id = ${a.cloud}`,
    );
    const before = await balanceOf(rig.t.db, a.user.id);
    const outside = await reply({ sessionId: a.cloud, type: 'string', content: 'Still there?' });
    expect(outside.statusCode).toBe(400);
    expect(outside.json().message).toBe(
      'The 24-hour window of this Cloud number has closed: answer with an approved template',
    );
    expect(await balanceOf(rig.t.db, a.user.id)).toBe(before);
    const thread = (await get(a.token, `/api/inbox/${personId}`)).json().thread;
    expect(thread.windowClosesAt).toBeNull();
    // A template may go.
    const template = await reply({
      sessionId: a.cloud,
      type: 'template',
      content: { name: 'order_update', language: 'en_US', parameters: ['#4411'] },
    });
    expect(template.statusCode, template.body).toBe(200);
    // A linked phone answers at any time.
    const linked = await reply({ sessionId: a.linked, type: 'string', content: 'From my phone' });
    expect(linked.statusCode, linked.body).toBe(200);
    expect(await balanceOf(rig.t.db, a.user.id)).toBe(before - 2);
    await expectLedgerChain(rig.t.db, a.user.id);
    await waitForJobEnd(rig.t.app, a.token, linked.json().jobId);

    // The thread shows the answers with their jobs and states; the list's last message is the latest answer.
    const opened = (await get(a.token, `/api/inbox/${personId}`)).json();
    const outs = opened.messages.filter((m: { direction: string }) => m.direction === 'out');
    expect(outs.map((m: { jobId: string }) => m.jobId)).toEqual([
      jobId,
      template.json().jobId,
      linked.json().jobId,
    ]);
    expect(outs[0].text).toBe('Yes, 4 left');
    // A template shows its body as the person read it, with the job's value in place.
    expect(outs[1]).toMatchObject({ type: 'template', text: 'Your order #4411 has shipped.' });
    expect(['sent', 'delivered', 'read']).toContain(outs[2].status);
    expect((await list(a.token)).threads[0]).toMatchObject({
      lastMessage: { direction: 'out', text: 'From my phone' },
    });
    // Needs a reply: only threads whose last message is the person's.
    expect((await list(a.token, '?needsReply=true')).threads).toEqual([]);
  });

  it('sends nothing to a person who opted out, and shows them under the opted-out filter', async () => {
    const a = await twoAccounts(10);
    const PHONE = '919811100073';
    expect((await inbound(a.token, a.linked, { from: PHONE, text: 'STOP' })).statusCode).toBe(200);
    const thread = await waitFor('the opted-out thread', async () => {
      const t = (await list(a.token, '?optedOut=true')).threads[0];
      return t?.optedOut ? t : null;
    });
    const jobsBefore = await queryRows<{ n: number }>(
      rig.t.db,
      sql`SELECT count(*)::int AS n FROM message_jobs WHERE user_id = ${a.user.id}`,
    );
    const res = await rig.post(a.token, `/api/inbox/${thread.personId}/reply`, {
      sessionId: a.linked,
      type: 'string',
      content: 'Sorry to see you go',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('This person opted out: nothing can be sent to them');
    const jobsAfter = await queryRows<{ n: number }>(
      rig.t.db,
      sql`SELECT count(*)::int AS n FROM message_jobs WHERE user_id = ${a.user.id}`,
    );
    expect(jobsAfter).toEqual(jobsBefore);
    expect(await balanceOf(rig.t.db, a.user.id)).toBe(10);
    expect((await list(a.token, '?optedOut=false')).threads).toEqual([]);
  });

  it('reopens a done thread as unread on a new message; pages newest first; filters by job replied to and by account', async () => {
    const a = await twoAccounts(10);
    const [P1, P2, P3] = ['919811100081', '919811100082', '919811100083'];
    const send = await rig.post(a.token, `/api/session/${a.linked}/sendIndividualMessage`, {
      chatIds: [P1],
      type: 'string',
      content: 'Our Diwali offer',
    });
    expect(send.statusCode, send.body).toBe(200);
    const jobId = send.json().jobId as string;
    await waitForJobEnd(rig.t.app, a.token, jobId);
    // The Cloud number's message first, a second before the others (Meta's time is whole seconds,
    // read as the end of that second).
    rig.fake.sendInbound(P3, 'Hello Cloud', 'Asha');
    await waitFor('the Cloud thread', async () => (await list(a.token)).threads.length === 1);
    await new Promise((r) => setTimeout(r, 1100));
    for (const [from, text] of [
      [P1, 'Interested!'],
      [P2, 'Who is this?'],
    ] as const)
      expect((await inbound(a.token, a.linked, { from, text })).statusCode).toBe(200);
    await waitFor('three threads', async () => (await list(a.token)).threads.length === 3);

    const byJob = (await list(a.token, `?jobId=${jobId}`)).threads;
    expect(byJob.map((t) => t.phone)).toEqual([P1]);
    expect((await list(a.token, `?sessionId=${a.cloud}`)).threads.map((t) => t.phone)).toEqual([P3]);
    expect((await list(a.token, '?q=8111000 82')).threads.map((t) => t.phone)).toEqual([P2]);
    expect((await list(a.token, '?q=asha')).threads.map((t) => t.phone)).toEqual([P3]);
    const p1 = byJob[0]!.personId as string;
    // The reply names the job it answers, and the thread shows the job's message before it.
    const opened = (await get(a.token, `/api/inbox/${p1}`)).json();
    expect(
      opened.messages.map((m: { direction: string; jobId: string; text: string }) => [
        m.direction,
        m.jobId,
        m.text,
      ]),
    ).toEqual([
      ['out', jobId, 'Our Diwali offer'],
      ['in', jobId, 'Interested!'],
    ]);

    // Pages, newest first.
    const first = await list(a.token, '?limit=2');
    expect(first.threads.map((t) => t.phone)).toEqual([P2, P1]);
    const second = await list(a.token, `?limit=2&cursor=${first.nextCursor}`);
    expect(second.threads.map((t) => t.phone)).toEqual([P3]);
    expect(second.nextCursor).toBeNull();

    // Done, then a new message opens it again, unread.
    const done = await rig.post(a.token, `/api/inbox/${p1}/state`, { state: 'done' });
    expect(done.json()).toEqual({ success: true, state: 'done' });
    expect((await list(a.token, '?state=done')).threads.map((t) => t.phone)).toEqual([P1]);
    expect((await list(a.token, '?state=unread')).threads.map((t) => t.phone)).toEqual([P2, P3]);
    expect((await inbound(a.token, a.linked, { from: P1, text: 'Any news?' })).statusCode).toBe(200);
    const reopened = await waitFor('reopened', async () => {
      const t = (await list(a.token)).threads[0];
      return t?.phone === P1 ? t : null;
    });
    expect(reopened).toMatchObject({
      state: 'open',
      unread: 1,
      lastMessage: { text: 'Any news?', direction: 'in' },
    });
    expect((await list(a.token, '?state=done')).threads).toEqual([]);
  });

  it('serves the files people send, from either kind of account, to their owner only', async () => {
    const a = await twoAccounts(5);
    const other = await account(rig.t, { track: rig.users });
    rig.fake.sendInboundMedia('919811100091', {
      type: 'image',
      mime: 'image/png',
      bytes: PNG,
      caption: 'The receipt',
    });
    expect(
      (
        await inbound(a.token, a.linked, {
          from: '919811100092',
          text: 'My bill',
          media: {
            type: 'document',
            mime: 'application/pdf',
            data: Buffer.from('%PDF-1.4 bill').toString('base64'),
            fileName: 'bill.pdf',
          },
        })
      ).statusCode,
    ).toBe(200);
    const threads = await waitFor('two threads', async () => {
      const l = (await list(a.token)).threads;
      return l.length === 2 ? l : null;
    });
    const files = new Map<string, { body: Buffer; type: string; text: string }>();
    for (const t of threads) {
      const opened = (await get(a.token, `/api/inbox/${t.personId}`)).json();
      const m = opened.messages[0];
      expect(m.media.url).toMatch(new RegExp(`^/api/inbox/${t.personId}/media/`));
      const file = await get(a.token, m.media.url);
      expect(file.statusCode, file.body).toBe(200);
      files.set(t.phone as string, { body: file.rawPayload, type: m.type, text: m.text });
      expect((await get(other.token, m.media.url)).statusCode).toBe(404);
    }
    expect(files.get('919811100091')).toEqual({ body: PNG, type: 'image', text: 'The receipt' });
    expect(files.get('919811100092')).toEqual({
      body: Buffer.from('%PDF-1.4 bill'),
      type: 'document',
      text: 'My bill',
    });
    // Another user sees no thread, message or file of this user's.
    expect((await list(other.token)).threads).toEqual([]);
    expect((await get(other.token, `/api/inbox/${threads[0]!.personId}`)).statusCode).toBe(404);
    expect((await get(other.token, '/api/inbox/counts')).json().unreadThreads).toBe(0);
  });
  it('two threads joined into one show as latest the message that came in last, when both came in the same second', async () => {
    const a = await twoAccounts(5);
    const PHONE = '919811100095';
    const LID = '270011100095@lid';
    const at = new Date(Math.floor(Date.now() / 1000) * 1000);
    const message = (from: string, text: string) =>
      keepIncoming(
        rig.t.ctx,
        { accountId: a.linked, userId: a.user.id },
        {
          from,
          text,
          messageId: `JOIN${text.replace(/\W/g, '')}`,
          at,
        },
      );
    // A vote from the number, then a changed vote from the LID WhatsApp moved the chat to, in one
    // second: two people until WhatsApp shows the LID is the number's.
    await message(`${PHONE}@s.whatsapp.net`, 'Red, Blue');
    await message(LID, 'Green');
    expect((await list(a.token)).threads).toHaveLength(2);
    await joinPerson(rig.t.ctx, a.user.id, [
      { kind: 'phone', value: PHONE },
      { kind: 'lid', value: LID.replace('@lid', '') },
    ]);

    const [thread, ...others] = (await list(a.token)).threads;
    expect(others).toEqual([]);
    expect(thread).toMatchObject({
      phone: PHONE,
      unread: 2,
      lastMessage: { text: 'Green', direction: 'in' },
    });
    const opened = (await get(a.token, `/api/inbox/${thread!.personId}`)).json();
    expect(opened.messages.map((m: { text: string }) => m.text)).toEqual(['Red, Blue', 'Green']);
  });
});
