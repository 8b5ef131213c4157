import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { failWhere } from '../../src/messaging/engine/transitions.ts';
import { connectedAccount, putPolicy } from '../fakes/accounts.ts';
import { adminSettingPrices, useCloudApp } from '../fakes/cloud-rig.ts';
import { balanceOf, expectLedgerChain, recipientsOf, retryJob, waitForJobEnd } from '../fakes/messaging.ts';
import { account, bearer, buildAdmin, DB_KINDS, loginToken, OPEN_POLICY } from '../helpers.ts';
import { waitFor } from '../wait.ts';

/**
 * Credits per recipient for each kind of account ("an admin may set a different credit
 * price per kind of account"): what a send reserves, what a refund gives back (what that recipient
 * was charged, even after the price changed), and the ledger's chain through it all.
 */
describe.each(DB_KINDS)('credit price per kind of account on %s', (kind) => {
  const rig = useCloudApp(kind, { SIMULATOR_LINK_AFTER_MS: '3600000' });
  const admin = adminSettingPrices(rig);

  const setPrices = (token: string, payload: Record<string, unknown>) =>
    rig.t.app.inject({ method: 'PUT', url: '/api/admin/credit-prices', headers: bearer(token), payload });
  const send = (token: string, accountId: string, payload: Record<string, unknown>) =>
    rig.post(token, `/api/session/${accountId}/sendIndividualMessage`, payload);
  const deleteJob = (token: string, jobId: string) =>
    rig.t.app.inject({ method: 'DELETE', url: `/api/message-jobs-details/${jobId}`, headers: bearer(token) });
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
  const ledger = async (userId: string) =>
    (await expectLedgerChain(rig.t.db, userId)).map((r) => [r.reason, r.delta, r.balanceAfter]);

  it('is 1 for both kinds until an admin sets it; only an admin sets it, to whole numbers of at least 1', async () => {
    const { t } = rig;
    const a = await account(t, { credits: 5 });
    const read = await t.app.inject({ method: 'GET', url: '/api/credit-prices', headers: bearer(a.token) });
    expect(read.json()).toEqual({ success: true, prices: { linked: 1, cloud: 1 } });
    expect((await t.app.inject({ method: 'GET', url: '/api/credit-prices' })).statusCode).toBe(401);

    expect((await setPrices(a.token, { cloud: 2 })).statusCode).toBe(403);
    const zero = await setPrices(admin.token, { linked: 0 });
    expect(zero.statusCode).toBe(400);
    expect(zero.json().message).toMatch(/The price must be at least 1 credit/);
    const half = await setPrices(admin.token, { cloud: 1.5 });
    expect(half.statusCode).toBe(400);
    expect(half.json().message).toMatch(/The price must be a whole number of credits/);
    expect((await setPrices(admin.token, {})).statusCode).toBe(400);

    const set = await setPrices(admin.token, { cloud: 3 });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toEqual({ success: true, prices: { linked: 1, cloud: 3 } });
    const both = await setPrices(admin.token, { linked: 2 });
    expect(both.json().prices).toEqual({ linked: 2, cloud: 3 });
    expect(await queryRows(t.db, sql`SELECT kind, credits FROM credit_prices ORDER BY kind`)).toEqual([
      { kind: 'cloud', credits: 3 },
      { kind: 'linked', credits: 2 },
    ]);
    const [audit] = await queryRows<{ details: unknown }>(
      t.db,
      sql`SELECT details FROM audit_log WHERE action = 'credits.prices' ORDER BY id DESC LIMIT 1`,
    );
    expect(audit?.details).toEqual({ before: { linked: 1, cloud: 3 }, after: { linked: 2, cloud: 3 } });
    const after = await t.app.inject({ method: 'GET', url: '/api/credit-prices', headers: bearer(a.token) });
    expect(after.json().prices).toEqual({ linked: 2, cloud: 3 });
  });

  it("prices for every user: a top-level admin's sign-in only (never an API key, never an admin another admin made); Meta's categories only; each change audited before and after", async () => {
    const { t } = rig;
    const top = await buildAdmin(t);
    const topToken = await loginToken(t.app, top.username);
    const made = await buildAdmin(t, { managedBy: top.id });
    const madeToken = await loginToken(t.app, made.username);
    const key = await t.app.inject({
      method: 'POST',
      url: '/api/api-keys',
      headers: bearer(topToken),
      payload: { name: 'Billing script', password: 'password123' },
    });
    expect(key.statusCode, key.body).toBe(200);
    const keyToken = key.json().key as string;
    const putCloud = (token: string, prices: unknown) =>
      t.app.inject({ method: 'PUT', url: '/api/cloud/prices', headers: bearer(token), payload: { prices } });
    const cloudRows = () =>
      queryRows(t.db, sql`SELECT category, price_units FROM cloud_prices ORDER BY category`);
    const before = await cloudRows();

    for (const token of [keyToken, madeToken]) {
      expect((await setPrices(token, { linked: 5 })).statusCode).toBe(403);
      expect((await putCloud(token, [{ category: 'marketing', priceUnits: 1 }])).statusCode).toBe(403);
    }
    expect((await setPrices(madeToken, { linked: 5 })).json().message).toBe(
      'Only a top-level admin may change prices that apply to every user',
    );
    const long = await putCloud(topToken, [{ category: 'x'.repeat(20_000), priceUnits: 1 }]);
    expect(long.statusCode).toBe(400);
    const unknown = await putCloud(topToken, [{ category: 'Shown to everyone', priceUnits: 1 }]);
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().message).toMatch(/The category must be one of Meta's: marketing/);
    expect(await cloudRows()).toEqual(before);
    expect(
      await queryRows(
        t.db,
        sql`SELECT count(*)::int AS n FROM audit_log WHERE action LIKE '%prices' AND actor_id IN (${top.id}, ${made.id})`,
      ),
    ).toEqual([{ n: 0 }]);

    const set = await putCloud(topToken, [{ category: ' Utility ', priceUnits: 1300 }]);
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().prices).toContainEqual({ category: 'utility', priceUnits: 1300 });
    const [audit] = await queryRows<{ actor: string; details: { before: unknown[]; after: unknown[] } }>(
      t.db,
      sql`SELECT actor, details FROM audit_log WHERE action = 'cloud.prices'`,
    );
    expect(audit!.actor).toBe(top.username);
    expect(audit!.details.after).toContainEqual({ category: 'utility', priceUnits: 1300 });
    expect(audit!.details.before).not.toContainEqual({ category: 'utility', priceUnits: 1300 });
    await t.db.execute(sql`DELETE FROM audit_log WHERE action = 'cloud.prices'`);
  });

  it('a send reserves recipients × the price; a cancel after a price change refunds what was charged', async () => {
    const { t } = rig;
    await setPrices(admin.token, { linked: 2 });
    const a = await account(t, { credits: 10 });
    const phone = await connectedAccount(t, a.token, '919740010001');
    const res = await send(a.token, phone, {
      content: 'Sale today',
      chatIds: ['919811200001', '919811200002', '919811200003'],
      scheduleTime: inAnHour(),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ totalChats: 3, creditsCharged: 6 });
    const jobId = res.json().jobId as string;
    expect((await recipientsOf(t.db, jobId)).map((r) => r.price)).toEqual([2, 2, 2]);
    expect(await balanceOf(t.db, a.user.id)).toBe(4);

    // Short: 3 recipients at 2 credits need 6; 4 are left.
    const short = await send(a.token, phone, {
      content: 'Again',
      chatIds: ['919811200001', '919811200002', '919811200003'],
      scheduleTime: inAnHour(),
    });
    expect(short.statusCode).toBe(402);
    expect(await balanceOf(t.db, a.user.id)).toBe(4);

    await setPrices(admin.token, { linked: 5 });
    const deleted = await deleteJob(a.token, jobId);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(await balanceOf(t.db, a.user.id)).toBe(10);
    expect(await ledger(a.user.id)).toEqual([
      ['grant', 10, 10],
      ['send', -6, 4],
      ['refund', 6, 10],
    ]);
  });

  it('a failure refunds the price charged; a retry after a price change charges the new price', async () => {
    const { t } = rig;
    await setPrices(admin.token, { linked: 2 });
    const a = await account(t, { credits: 20 });
    const phone = await connectedAccount(t, a.token, '919740010002');
    await putPolicy(t, a.token, [phone], OPEN_POLICY);
    const res = await send(a.token, phone, {
      content: 'Sale today',
      chatIds: ['919811200011', '919811200012'],
      scheduleTime: inAnHour(),
    });
    const jobId = res.json().jobId as string;
    expect(res.json().creditsCharged).toBe(4);
    await setPrices(admin.token, { linked: 3 });
    // Both fail (a connection lost before the send: a retry may fix it), through the engine's transition.
    const failed = await t.db.transaction((tx) =>
      failWhere(tx, sql`r.job_id = ${jobId}`, 'Connection Closed', 'Connection Closed', 100),
    );
    expect(failed).toEqual([{ jobId, userId: a.user.id, count: 2, credits: 4 }]);
    expect(await balanceOf(t.db, a.user.id)).toBe(20);

    const retry = await retryJob(t.app, a.token, jobId);
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json()).toMatchObject({ retried: 2, creditsCharged: 6 });
    expect(await waitForJobEnd(t.app, a.token, jobId)).toMatchObject({ status: 'completed' });
    expect((await recipientsOf(t.db, jobId)).map((r) => [r.status, r.price])).toEqual([
      ['sent', 3],
      ['sent', 3],
    ]);
    expect(await ledger(a.user.id)).toEqual([
      ['grant', 20, 20],
      ['send', -4, 16],
      ['refund', 4, 20],
      ['retry', -6, 14],
    ]);
  });

  it('a spread over a linked phone and a Cloud account charges each share at its kind’s price, and refunds each so', async () => {
    const { t } = rig;
    await setPrices(admin.token, { linked: 1, cloud: 4 });
    const a = await account(t, { credits: 30 });
    const phone = await connectedAccount(t, a.token, '919740010003');
    const cloud = await rig.connect(a.token);
    await putPolicy(t, a.token, [phone, cloud], OPEN_POLICY);
    const chats = ['919811200021', '919811200022', '919811200023', '919811200024'];
    for (const c of chats) rig.fake.sendInbound(c, 'Hello');
    await waitFor('the four windows', async () => {
      const rows = await queryRows(
        t.db,
        sql`SELECT 1 FROM cloud_service_windows WHERE session_id = ${cloud}`,
      );
      return rows.length === 4;
    });
    const res = await send(a.token, phone, {
      content: 'Sale today',
      chatIds: chats,
      sessionIds: [cloud],
      scheduleTime: inAnHour(),
    });
    expect(res.statusCode, res.body).toBe(200);
    const jobId = res.json().jobId as string;
    const rows = await recipientsOf(t.db, jobId);
    const viaCloud = rows.filter((r) => r.accountId === cloud).length;
    expect(viaCloud).toBe(2);
    for (const r of rows) expect(r.price, r.chatId).toBe(r.accountId === cloud ? 4 : 1);
    expect(res.json().creditsCharged).toBe(2 * 1 + 2 * 4);
    expect(await balanceOf(t.db, a.user.id)).toBe(20);

    // The prices change; the refund of each recipient is still what it was charged.
    await setPrices(admin.token, { linked: 7, cloud: 1 });
    const phoneRecipient = rows.find((r) => r.accountId === phone)!;
    await t.db.transaction((tx) =>
      failWhere(tx, sql`r.id = ${phoneRecipient.id}`, 'Connection Closed', 'Connection Closed', 1),
    );
    expect(await balanceOf(t.db, a.user.id)).toBe(21);
    expect((await deleteJob(a.token, jobId)).statusCode).toBe(200);
    expect(await balanceOf(t.db, a.user.id)).toBe(30);
    expect(await ledger(a.user.id)).toEqual([
      ['grant', 30, 30],
      ['send', -10, 20],
      ['refund', 1, 21],
      ['refund', 9, 30],
    ]);
  });
});
