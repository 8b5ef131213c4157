import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerSum } from '../../src/credits/credits.ts';
import { accounts, messageJobRecipients, users, waAuthState } from '../../src/db/schema.ts';
import { type Engine, startEngine } from '../../src/engine.ts';
import { RESTRICTED_PREFIX } from '../../src/transport/simulator/numbers.ts';
import { connectedAccount, statusOf } from '../fakes/accounts.ts';
import { bearer, buildUser, createTestApp, loginToken, type TestApp } from '../helpers.ts';
import { waitFor } from '../wait.ts';
import { recordFigure } from './support/figures.ts';
import { duplicateSends, readOutbox } from './support/server-process.ts';

/**
 * Faults of the transport, through the real engine (account runner, simulator,
 * dispatcher) on an in-process app: connection drops mid-job, the phone unlinking the device,
 * and WhatsApp's error 463 (produced by the simulator for numbers starting with 999463).
 */

const SECTION = 'transport faults';

type Rig = { t: TestApp; engine: Engine; outbox: string };

async function rig(env: Record<string, string>): Promise<Rig> {
  const outbox = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wa-faults-')), 'outbox.jsonl');
  const t = await createTestApp('pglite', {
    SIMULATOR_OUTBOX_FILE: outbox,
    SIMULATOR_SEND_LATENCY_MS: '3',
    SIMULATOR_GROUPS: '2',
    ...env,
  });
  const engine = await startEngine(t.ctx);
  return { t, engine, outbox };
}

async function closeRig(r: Rig | undefined) {
  if (!r) return;
  await r.engine.stop();
  await r.t.close();
  fs.rmSync(path.dirname(r.outbox), { recursive: true, force: true });
}

async function account(r: Rig, credits: number, phone: string) {
  const user = await buildUser(r.t, { credits });
  const token = await loginToken(r.t.app, user.username);
  const accountId = await connectedAccount(r.t, token, phone);
  return { user, token, sessionId: accountId };
}

async function send(r: Rig, token: string, accountId: string, chatIds: string[]) {
  const res = await r.t.app.inject({
    method: 'POST',
    url: `/api/session/${accountId}/sendIndividualMessage`,
    headers: bearer(token),
    payload: { chatIds, content: 'Fault test' },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().jobId as string;
}

const recipients = (r: Rig, jobId: string) =>
  r.t.db.select().from(messageJobRecipients).where(eq(messageJobRecipients.jobId, jobId));
const accountRow = async (r: Rig, accountId: string) =>
  (await r.t.db.select().from(accounts).where(eq(accounts.accountId, accountId)))[0]!;
const balance = async (r: Rig, userId: string) =>
  (await r.t.db.select({ c: users.credits }).from(users).where(eq(users.id, userId)))[0]!.c;
const outboxOf = (r: Rig, accountId: string) =>
  readOutbox(r.outbox).lines.filter((m) => m.sessionId === accountId);
const simulator = (r: Rig, token: string, accountId: string, action: string) =>
  r.t.app.inject({
    method: 'POST',
    url: `/api/simulator/sessions/${accountId}/${action}`,
    headers: bearer(token),
  });
const numbers = (n: number, start: number) => Array.from({ length: n }, (_, i) => String(start + i));

describe('transport faults through the engine and the simulator', () => {
  describe('connection drops', () => {
    let r: Rig;
    beforeAll(async () => {
      r = await rig({});
    });
    afterAll(() => closeRig(r));

    it('three drops during a 1,000-recipient job: recipients wait, resume, none sent twice', async () => {
      const N = 1000;
      const { user, token, sessionId: accountId } = await account(r, N, '919710000001');
      const jobId = await send(r, token, accountId, numbers(N, 917_100_000_001));
      let sentDuringOutage = 0;
      let waitedDuringOutage = 0;
      const outages: number[] = [];
      for (const at of [150, 400, 650]) {
        await waitFor(`${at} sent`, async () => outboxOf(r, accountId).length >= at, 60_000, 20);
        const drop = await simulator(r, token, accountId, 'disconnect');
        expect(drop.statusCode, drop.body).toBe(200);
        const down = Date.now();
        await waitFor(
          'DISCONNECTED',
          async () => !(await statusOf(r.t, token, accountId)).connected,
          5000,
          10,
        );
        waitedDuringOutage +=
          (await recipients(r, jobId)).filter((x) => x.status === 'queued').length > 0 ? 1 : 0;
        const up = await waitFor(
          'reconnected',
          async () => {
            const row = await accountRow(r, accountId);
            return row.status === 'CONNECTED' && row.connectedAt && row.connectedAt.getTime() > down
              ? row.connectedAt.getTime()
              : null;
          },
          30_000,
          20,
        );
        outages.push(up - down);
        sentDuringOutage += outboxOf(r, accountId).filter((m) => {
          const t = Date.parse(m.sentAt);
          return t > down && t < up;
        }).length;
      }
      const end = await waitFor(
        'job end',
        async () => {
          const rs = await recipients(r, jobId);
          return rs.every((x) => x.status === 'sent' || x.status === 'failed') ? rs : null;
        },
        120_000,
        100,
      );
      const lines = outboxOf(r, accountId);
      const duplicates = duplicateSends(lines);
      const failed = end.filter((x) => x.status === 'failed').length;
      const drift = N - (await balance(r, user.id)) - end.filter((x) => x.status === 'sent').length;
      const ledgerGap = (await ledgerSum(r.t.db, user.id)) - (await balance(r, user.id));

      recordFigure(SECTION, 'drop: connection drops mid-job', outages.length);
      recordFigure(
        SECTION,
        'drop: outage avg (ms)',
        Math.round(outages.reduce((a, b) => a + b, 0) / outages.length),
      );
      recordFigure(SECTION, 'drop: outages where recipients waited', waitedDuringOutage);
      recordFigure(SECTION, 'drop: sends while disconnected', sentDuringOutage, true);
      recordFigure(SECTION, 'drop: chats sent twice', duplicates, true);
      recordFigure(SECTION, 'drop: recipients failed', failed, true);
      recordFigure(SECTION, 'drop: credit drift', drift, true);
      recordFigure(SECTION, 'drop: ledger sum − balance', ledgerGap, true);

      expect(waitedDuringOutage).toBe(3);
      expect(sentDuringOutage).toBe(0);
      expect(duplicates).toBe(0);
      expect(lines.length).toBe(N);
      expect(failed).toBe(0);
      expect(drift).toBe(0);
      expect(ledgerGap).toBe(0);
    });
  });

  describe('logout and 463 (SESSION_WAIT_MS 3 s)', () => {
    let r: Rig;
    beforeAll(async () => {
      r = await rig({ SESSION_WAIT_MS: '3000' });
    });
    afterAll(() => closeRig(r));

    it('the phone unlinks the device mid-job: credentials wiped, DISCONNECTED, pending recipients fail and are refunded', async () => {
      const N = 300;
      const initial = 400;
      const { user, token, sessionId: accountId } = await account(r, initial, '919710000002');
      expect(
        (await r.t.db.select().from(waAuthState).where(eq(waAuthState.accountId, accountId))).length,
      ).toBe(1);
      const jobId = await send(r, token, accountId, numbers(N, 917_100_010_001));
      await waitFor('50 sent', async () => outboxOf(r, accountId).length >= 50, 60_000, 10);
      const logout = await simulator(r, token, accountId, 'logout');
      expect(logout.statusCode, logout.body).toBe(200);
      const at = Date.now();
      const status = await waitFor(
        'DISCONNECTED',
        async () => {
          const s = await statusOf(r.t, token, accountId);
          return s.status === 'DISCONNECTED' ? s : null;
        },
        60_000,
      );
      const sentAtLogout = outboxOf(r, accountId).length;
      const credsLeft = (await r.t.db.select().from(waAuthState).where(eq(waAuthState.accountId, accountId)))
        .length;
      const row = await accountRow(r, accountId);

      const end = await waitFor(
        'pending recipients to fail',
        async () => {
          const rs = await recipients(r, jobId);
          return rs.every((x) => x.status === 'sent' || x.status === 'failed') ? rs : null;
        },
        60_000,
        100,
      );
      const sent = end.filter((x) => x.status === 'sent');
      const failed = end.filter((x) => x.status === 'failed');
      const wrongReason = failed.filter((x) => x.error !== 'Session is not connected').length;
      const sentAfterLogout = outboxOf(r, accountId).length - sentAtLogout;
      const notRefunded = initial - (await balance(r, user.id)) - sent.length;
      const ledgerGap = (await ledgerSum(r.t.db, user.id)) - (await balance(r, user.id));
      const failedAfterMs = Math.max(...failed.map((x) => x.updatedAt.getTime())) - at;

      recordFigure(SECTION, 'logout: sent before the unlink', sent.length);
      recordFigure(SECTION, 'logout: pending recipients failed', failed.length);
      recordFigure(SECTION, 'logout: failed after (ms, wait 3000)', failedAfterMs);
      recordFigure(SECTION, 'logout: credentials left', credsLeft, true);
      recordFigure(
        SECTION,
        'logout: status not DISCONNECTED',
        status.status === 'DISCONNECTED' ? 0 : 1,
        true,
      );
      recordFigure(SECTION, 'logout: sends after the unlink', sentAfterLogout, true);
      recordFigure(SECTION, 'logout: failed with another reason', wrongReason, true);
      recordFigure(SECTION, 'logout: failed but not refunded', notRefunded, true);
      recordFigure(SECTION, 'logout: ledger sum − balance', ledgerGap, true);

      expect(status).toMatchObject({
        connected: false,
        status: 'DISCONNECTED',
        statusReason: 'Logged out from the phone',
      });
      expect(row).toMatchObject({ hasCredentials: false, desiredState: 'stopped' });
      expect(credsLeft).toBe(0);
      expect(sentAfterLogout).toBe(0);
      expect(failed.length).toBeGreaterThan(0);
      expect(sent.length + failed.length).toBe(N);
      expect(wrongReason).toBe(0);
      expect(notRefunded).toBe(0);
      expect(ledgerGap).toBe(0);
    });

    it('error 463 mid-job: the queue pauses with its reason visible, nothing is retried or sent after it', async () => {
      const initial = 500;
      const { user, token, sessionId: accountId } = await account(r, initial, '919710000003');
      const chats = numbers(200, 917_100_020_001);
      chats[60] = `${RESTRICTED_PREFIX}000001`;
      const jobId = await send(r, token, accountId, chats);
      const paused = await waitFor(
        'paused',
        async () =>
          (await accountRow(r, accountId)).sendPaused ? await statusOf(r.t, token, accountId) : null,
        60_000,
        20,
      );
      // A second job on the paused account: accepted, held (not sent, not failed).
      const second = await send(r, token, accountId, numbers(50, 917_100_030_001));
      await waitFor(
        'the restricted send to be recorded',
        async () => ((await recipients(r, jobId)).some((x) => x.status === 'failed') ? true : null),
        60_000,
        100,
      );
      // Held past SESSION_WAIT_MS (3 s): one-to-one sends wait for the restriction to end (docs/decisions.md, Sending pace).
      await new Promise((res) => setTimeout(res, 4000));
      const rows = [...(await recipients(r, jobId)), ...(await recipients(r, second))];
      const held = rows.filter((x) => x.status === 'queued').length;
      const lines = outboxOf(r, accountId);
      const restricted = rows.find((x) => x.chatId.startsWith(RESTRICTED_PREFIX))!;
      const sent = rows.filter((x) => x.status === 'sent');
      const sentAfter = sent.filter((x) => x.id > restricted.id).length;
      const retried = rows.filter((x) => x.attempts > 1).length;
      const triedAfter = rows.filter((x) => x.id > restricted.id && x.attempts > 0).length;
      const wrongReason = rows.filter((x) => x.status === 'failed' && x.id !== restricted.id).length;
      // Held recipients keep their reserved credit.
      const notRefunded = initial - (await balance(r, user.id)) - sent.length - held;
      const ledgerGap = (await ledgerSum(r.t.db, user.id)) - (await balance(r, user.id));
      const reasonVisible = /463/.test(paused.statusReason ?? '');

      recordFigure(SECTION, '463: sent before the restriction', sent.length);
      recordFigure(SECTION, '463: reason visible in session status', reasonVisible ? 'yes' : 'NO');
      recordFigure(SECTION, '463: recipients sent after it', sentAfter + (lines.length - sent.length), true);
      recordFigure(SECTION, '463: recipients tried after it', triedAfter, true);
      recordFigure(SECTION, '463: recipients tried twice', retried, true);
      recordFigure(SECTION, '463: one-to-one recipients held after it', held);
      recordFigure(SECTION, '463: failed but not refunded', notRefunded, true);
      recordFigure(SECTION, '463: ledger sum − balance', ledgerGap, true);

      expect(reasonVisible).toBe(true);
      expect((await accountRow(r, accountId)).sendPaused).toBe(true);
      expect(restricted).toMatchObject({ status: 'failed', attempts: 1 });
      expect(restricted.error).toMatch(/463/);
      expect(sent.length).toBe(60);
      expect(lines.length).toBe(60);
      expect(held).toBe(200 - 61 + 50);
      expect(sentAfter).toBe(0);
      expect(triedAfter).toBe(0);
      expect(retried).toBe(0);
      expect(wrongReason).toBe(0);
      expect(notRefunded).toBe(0);
      expect(ledgerGap).toBe(0);
    });
  });
});
