import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { messageJobSeries } from '../../src/db/schema.ts';
import { MESSAGES } from '../../src/errors.ts';
import { SEND_ROUTE_CONFIG } from '../../src/http/routes/send.ts';

const SEND_RATE_LIMIT = SEND_ROUTE_CONFIG.rateLimit;

import { JOB_MESSAGES, MAX_ACTIVE_SERIES } from '../../src/messaging/messages.ts';
import { buildSession } from '../fakes/messaging.ts';
import { account, bearer, DB_KINDS, testAppFor } from '../helpers.ts';

const GROUP = '120363000000000001@g.us';

describe.each(DB_KINDS)('what a send checks first, and how often, on %s', (kind) => {
  const t = testAppFor(kind);

  async function sender(credits: number) {
    const { user, token } = await account(t, { credits });
    const sessionId = await buildSession(t, user.id, { ownerNode: t.ctx.nodeId });
    type Route = 'sendBulkMessage' | 'sendIndividualMessage';
    const sendTo = (session: string, route: Route, payload: object) =>
      t.app.inject({
        method: 'POST',
        url: `/api/session/${session}/${route}`,
        headers: bearer(token),
        payload,
      });
    const send = (route: Route, payload: object) => sendTo(sessionId, route, payload);
    return { user, send, sendTo };
  }

  it('refuses 200,000 made-up group ids on the balance before reading them', async () => {
    const { send, sendTo } = await sender(100);
    const chatIds = Array.from({ length: 200_000 }, (_, i) => `1203630${String(i).padStart(11, '0')}@g.us`);
    const timed = async (request: () => ReturnType<typeof send>) => {
      const started = performance.now();
      const res = await request();
      return { res, ms: performance.now() - started };
    };
    // What reading the body alone costs: the same request to an unknown session (404 at once).
    const floor = await timed(() =>
      sendTo('unknown-session', 'sendBulkMessage', { chatIds, content: 'Hello' }),
    );
    expect(floor.res.statusCode).toBe(404);
    const { res, ms } = await timed(() => send('sendBulkMessage', { chatIds, content: 'Hello' }));
    console.log(
      `200,000 made-up group ids on ${kind}: ${res.statusCode} in ${Math.round(ms)} ms (body alone ${Math.round(floor.ms)} ms)`,
    );
    expect([res.statusCode, res.json().message]).toEqual([402, MESSAGES.creditShort]);
    // Counting and one balance read on top of the body, not parsing the ids and looking each up
    // (1,439 ms on PGlite here, against 424 ms after).
    expect(ms).toBeLessThan(floor.ms * 2 + 300);
  });

  it('refuses numbers beyond the balance before parsing them; what fits goes on to validation', async () => {
    const { send } = await sender(2);
    const short = await send('sendIndividualMessage', {
      chatIds: ['9198000001', '9198000002', '9198000003'],
      content: 'Hi',
    });
    expect([short.statusCode, short.json().message]).toEqual([402, MESSAGES.creditShort]);
    // Two spellings of one number count once: two numbers fit a balance of 2 (and then fail validation).
    const fits = await send('sendIndividualMessage', {
      chatIds: ['9198000001', '+91 98000001', '12'],
      content: 'Hi',
    });
    expect([fits.statusCode, fits.json().message]).toEqual([400, 'Invalid phone number: 12']);
  });

  it(`answers 429 after ${SEND_RATE_LIMIT.max} sends a minute from one user to one route; another user goes on`, async () => {
    const { send } = await sender(0);
    const codes: number[] = [];
    for (let i = 0; i <= SEND_RATE_LIMIT.max; i++)
      codes.push((await send('sendBulkMessage', { chatIds: [GROUP], content: 'Hi' })).statusCode);
    expect(codes.slice(0, SEND_RATE_LIMIT.max).every((c) => c === 402)).toBe(true);
    expect(codes.at(-1)).toBe(429);
    // Each send route has its own allowance.
    expect(
      (await send('sendIndividualMessage', { chatIds: ['919800000001'], content: 'Hi' })).statusCode,
    ).toBe(402);
    const other = await sender(0);
    expect((await other.send('sendBulkMessage', { chatIds: [GROUP], content: 'Hi' })).statusCode).toBe(402);
  });

  it(`refuses a repeating send beyond ${MAX_ACTIVE_SERIES} active series; an ended one frees its place`, async () => {
    const { user, send } = await sender(10);
    const sessionId = `${crypto.randomUUID()}`;
    const rows = Array.from({ length: MAX_ACTIVE_SERIES }, () => ({
      id: crypto.randomUUID(),
      userId: user.id,
      sessionId,
      audience: 'individuals' as const,
      every: 'day' as const,
      anchorAt: new Date(Date.now() + 86_400_000),
      chatIds: ['919800000001@s.whatsapp.net'],
      chatNames: [],
    }));
    await t.db.insert(messageJobSeries).values(rows);
    const body = {
      chatIds: ['919800000002'],
      content: 'Weekly offer',
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
      repeat: { every: 'week' },
    };
    const refused = await send('sendIndividualMessage', body);
    expect([refused.statusCode, refused.json().message]).toEqual([400, JOB_MESSAGES.tooManySeries]);
    await t.db
      .update(messageJobSeries)
      .set({ endedAt: new Date() })
      .where(eq(messageJobSeries.userId, user.id));
    expect((await send('sendIndividualMessage', body)).statusCode).toBe(200);
  });
});
