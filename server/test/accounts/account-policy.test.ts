import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { accounts } from '../../src/db/schema.ts';
import type { SimulatorTransport } from '../../src/transport/simulator/transport.ts';
import { jobDetails, pastAccountWait, recipientsOf, waitForJobEnd } from '../fakes/messaging.ts';
import { account, appWithEngine, bearer, DB_KINDS, linkedAccount, OPEN_POLICY } from '../helpers.ts';
import { waitFor } from '../wait.ts';

const numbers = (n: number, from: number) =>
  Array.from({ length: n }, (_, i) => `9196${30_001_001 + from + i}`);
const POLICY = { ...OPEN_POLICY, newContactsPerDay: null };
/** HH:MM in Kolkata, `minutes` from now. */
const kolkata = (minutes: number) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Asia/Kolkata',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(Date.now() + minutes * 60_000));

describe.each(DB_KINDS)('an account’s sending policy on %s', (kind) => {
  const users = new Set<string>();
  // Recipients held by a policy must outlive SESSION_WAIT_MS.
  const { t, engine } = appWithEngine(
    kind,
    { SESSION_WAIT_MS: '1000', SIMULATOR_LINK_AFTER_MS: '3600000' },
    users,
  );

  const owner = (credits: number, phone: string) => linkedAccount(t, { credits, phone, track: users });
  const put = (token: string, accountId: string, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'PUT', url: `/api/session/${accountId}/policy`, headers: bearer(token), payload });
  const get = (token: string, accountId: string) =>
    t.app.inject({ method: 'GET', url: `/api/session/${accountId}/policy`, headers: bearer(token) });
  const send = async (token: string, accountId: string, chatIds: string[], content = 'Policy test') =>
    (
      await t.app.inject({
        method: 'POST',
        url: `/api/session/${accountId}/sendIndividualMessage`,
        headers: bearer(token),
        payload: { chatIds, content },
      })
    ).json().jobId as string;
  const details = (token: string, jobId: string) => jobDetails(t.app, token, jobId);

  it('answers the defaults, refuses bad values with clear messages and keeps the stored policy', async () => {
    const { token, accountId } = await owner(0, '919630002001');
    const first = await get(token, accountId);
    expect(first.statusCode).toBe(200);
    // The simulator: warm-up off; the test server's pause range is 0-0.
    expect(first.json()).toMatchObject({
      success: true,
      policy: POLICY,
      today: { sent: 0, limit: null, warmUpLimit: null },
      holding: null,
    });
    expect(new Date(first.json().today.resetsAt).getTime()).toBeGreaterThan(Date.now());

    const bad: Array<[Record<string, unknown>, string]> = [
      [
        { delayMinMs: 700_000, delayMaxMs: 700_000 },
        'delayMinMs must be a whole number of milliseconds from 0 to 600,000',
      ],
      [{ delayMinMs: 5000, delayMaxMs: 1000 }, 'delayMinMs must not be above delayMaxMs'],
      [{ dailyLimit: 0 }, 'dailyLimit must be a whole number from 1 to 100,000, or null for no limit'],
      [{ dailyLimit: 100_001 }, 'dailyLimit must be a whole number from 1 to 100,000, or null for no limit'],
      [{ timezone: 'Mars/Olympus' }, 'timezone must be an IANA time zone name such as Asia/Kolkata'],
      [
        { quietHours: { start: '25:00', end: '07:00' } },
        'quietHours.start must be a time as HH:MM (00:00 to 23:59)',
      ],
      [{ quietHours: { start: '07:00', end: '07:00' } }, 'quietHours.start and quietHours.end must differ'],
    ];
    for (const [change, message] of bad) {
      const res = await put(token, accountId, { ...POLICY, ...change });
      expect(res.statusCode, message).toBe(400);
      expect(res.json()).toEqual({ success: false, message });
    }
    expect((await get(token, accountId)).json().policy).toEqual(POLICY);

    const chosen = {
      ...POLICY,
      dailyLimit: 200,
      quietHours: { start: '22:00', end: '07:00' },
      timezone: 'Europe/London',
    };
    const saved = await put(token, accountId, chosen);
    expect(saved.json()).toMatchObject({ success: true, policy: chosen, today: { sent: 0, limit: 200 } });
    expect((await get(token, accountId)).json().policy).toEqual(chosen);

    const { token: otherToken } = await account(t);
    expect((await get(otherToken, accountId)).statusCode).toBe(404);
    expect((await put(otherToken, accountId, POLICY)).statusCode).toBe(404);
  });

  it('stops at the daily limit, holds the rest without failing them, and says until when', async () => {
    const { token, accountId } = await owner(8, '919630002002');
    await put(token, accountId, { ...POLICY, dailyLimit: 5 });
    const jobId = await send(token, accountId, numbers(8, 0));
    const held = await waitFor('the hold', async () => {
      const j = await details(token, jobId);
      return j.statusReason ? j : null;
    });
    expect(held.statusReason).toBe('Waiting: daily limit reached, resumes at 00:00');
    // Longer than SESSION_WAIT_MS: still waiting, nothing failed.
    await pastAccountWait(t, users);
    const still = await details(token, jobId);
    expect(still.results).toMatchObject({ success: 5, failed: 0 });
    expect((await recipientsOf(t.db, jobId)).filter((r) => r.status === 'queued')).toHaveLength(3);
    const policy = (await get(token, accountId)).json();
    expect(policy.today).toMatchObject({ sent: 5, limit: 5 });
    expect(policy.holding).toBe('Waiting: daily limit reached, resumes at 00:00');

    // A higher limit lets the rest go at once.
    await put(token, accountId, { ...POLICY, dailyLimit: 10 });
    const done = await waitForJobEnd(t.app, token, jobId);
    expect(done).toMatchObject({ status: 'completed', statusReason: null, results: { success: 8 } });
  });

  it('sends nothing inside quiet hours and shows when they end', async () => {
    const { token, accountId } = await owner(3, '919630002003');
    const end = kolkata(60);
    await put(token, accountId, { ...POLICY, quietHours: { start: kolkata(-60), end } });
    const jobId = await send(token, accountId, numbers(3, 100));
    const held = await waitFor('the hold', async () => {
      const j = await details(token, jobId);
      return j.statusReason ? j : null;
    });
    expect(held.statusReason).toBe(`Waiting: quiet hours until ${end}`);
    await pastAccountWait(t, users);
    expect((await details(token, jobId)).results).toMatchObject({ success: 0, failed: 0 });

    await put(token, accountId, POLICY);
    const done = await waitForJobEnd(t.app, token, jobId);
    expect(done.results.success).toBe(3);
  });

  it('caps one-to-one chats of a new account by the warm-up table', async () => {
    const { token, accountId } = await owner(54, '919630002004');
    await put(token, accountId, { ...POLICY, warmUp: true });
    // Linked today: day 1, 50 a day.
    const answer = (await get(token, accountId)).json();
    expect(answer.today.warmUpLimit).toBe(50);
    // The coming days' caps, for a forecast of a large send: days 2-3 50, 4-7 150, 8-14 400, then none.
    const days = answer.nextDays as Array<{ startsAt: string; warmUpLimit: number | null }>;
    expect(days.map((d) => d.warmUpLimit)).toEqual([
      50,
      50,
      150,
      150,
      150,
      150,
      400,
      400,
      400,
      400,
      400,
      400,
      400,
      null,
      null,
    ]);
    expect(days[0]!.startsAt).toBe(answer.today.resetsAt);
    // Asia/Kolkata has no summer time: one local midnight a day apart.
    expect(Date.parse(days[14]!.startsAt) - Date.parse(days[0]!.startsAt)).toBe(14 * 86_400_000);
    const jobId = await send(token, accountId, numbers(52, 200));
    const held = await waitFor('the warm-up cap', async () => {
      const j = await details(token, jobId);
      return j.statusReason ? j : null;
    });
    expect(held.statusReason).toBe('Waiting: warm-up limit of 50 messages a day reached, resumes at 00:00');
    // Groups are not capped by the warm-up: a group job of the account gives no such reason, nor
    // does a scheduled one (it waits for its time).
    const groups = (
      await t.app.inject({ method: 'GET', url: `/api/groupsList/${accountId}`, headers: bearer(token) })
    ).json().groups as { groupId: string }[];
    const toGroup = async (payload: Record<string, unknown>) =>
      (
        await t.app.inject({
          method: 'POST',
          url: `/api/session/${accountId}/sendBulkMessage`,
          headers: bearer(token),
          payload: { chatIds: [groups[0]!.groupId], ...payload },
        })
      ).json().jobId as string;
    const later = await toGroup({
      content: 'Later',
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const nowJob = await toGroup({ content: 'Now' });
    expect((await details(token, later)).statusReason).toBeNull();
    expect((await details(token, nowJob)).statusReason).toBeNull();
    expect((await waitForJobEnd(t.app, token, nowJob)).results.success).toBe(1);
    expect((await details(token, jobId)).statusReason).toBe(held.statusReason);
    await pastAccountWait(t, users);
    expect((await details(token, jobId)).results).toMatchObject({ success: 50, failed: 0 });

    // Linked 20 days ago: no warm-up cap any more.
    await t.db
      .update(accounts)
      .set({ linkedAt: new Date(Date.now() - 20 * 86_400_000) })
      .where(eq(accounts.accountId, accountId));
    await put(token, accountId, { ...POLICY, warmUp: true });
    const done = await waitForJobEnd(t.app, token, jobId);
    expect(done.results.success).toBe(52);
  });

  it('shows "typing…" before a text, inside the pause between messages', async () => {
    const { token, accountId } = await owner(2, '919630002005');
    await put(token, accountId, { ...POLICY, delayMinMs: 2000, delayMaxMs: 2000 });
    const chats = numbers(2, 300);
    const jobId = await send(token, accountId, chats, 'Hello there');
    await waitForJobEnd(t.app, token, jobId);
    const rows = await recipientsOf(t.db, jobId);
    const transport = engine.runtime.transportFor(accountId) as SimulatorTransport;
    const shown = transport.presences.filter((p) => chats.some((c) => p.chatId.startsWith(c)));
    // None before the first message (no pause precedes it), one before the second.
    expect(shown.map((p) => [p.chatId, p.state])).toEqual([[`${chats[1]}@s.whatsapp.net`, 'composing']]);
    const gap = rows[1]!.sentAt!.getTime() - rows[0]!.sentAt!.getTime();
    const typedFor = rows[1]!.sentAt!.getTime() - shown[0]!.at.getTime();
    expect(gap).toBeGreaterThanOrEqual(1900);
    expect(gap).toBeLessThan(4000);
    expect(typedFor).toBeGreaterThanOrEqual(1000);
    expect(typedFor).toBeLessThan(gap);
  });

  it('shows no "typing…" to a number not on WhatsApp: only once the transport found the contact', async () => {
    const { token, accountId } = await owner(3, '919630002006');
    await put(token, accountId, { ...POLICY, delayMinMs: 1500, delayMaxMs: 1500 });
    // The middle number is not on WhatsApp (the simulator's numbers ending 0000).
    const chats = [numbers(1, 400)[0]!, '919630000000', numbers(1, 401)[0]!];
    const jobId = await send(token, accountId, chats, 'Hello there');
    await waitForJobEnd(t.app, token, jobId);
    const rows = await recipientsOf(t.db, jobId);
    expect(rows.map((r) => r.status)).toEqual(['sent', 'failed', 'sent']);
    const transport = engine.runtime.transportFor(accountId) as SimulatorTransport;
    const shown = transport.presences.filter((p) => chats.some((c) => p.chatId.startsWith(c)));
    // The third shows it (a pause precedes it), the second does not: it was never reachable.
    expect(shown.map((p) => [p.chatId, p.state])).toEqual([[`${chats[2]}@s.whatsapp.net`, 'composing']]);
  });
});
