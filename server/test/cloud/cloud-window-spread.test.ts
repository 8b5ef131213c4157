import { CLOUD_TEXTS } from '@wa/contract';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { messageJobs } from '../../src/db/schema.ts';
import { connectedAccount, putPolicy } from '../fakes/accounts.ts';
import { useCloudApp } from '../fakes/cloud-rig.ts';
import { balanceOf, recipientsOf, waitForJobEnd } from '../fakes/messaging.ts';
import { account, bearer, DB_KINDS, OPEN_POLICY } from '../helpers.ts';
import { waitFor } from '../wait.ts';

/**
 * Meta's 24-hour customer service window (free-form messages only within 24 h of the number's
 * last message: "Service messages", developers.facebook.com/documentation/business-messaging/whatsapp/messages/send-messages)
 * and one job spread over a linked phone and a Cloud API account.
 */
describe.each(DB_KINDS)('Cloud API service window and mixed spreads on %s', (kind) => {
  const rig = useCloudApp(kind, { SIMULATOR_LINK_AFTER_MS: '3600000' });

  const send = (token: string, accountId: string, payload: Record<string, unknown>) =>
    rig.post(token, `/api/session/${accountId}/sendIndividualMessage`, payload);
  /** The number writes to the account (a signed inbound webhook); resolves once its window is recorded. */
  async function writesIn(accountId: string, from: string) {
    rig.fake.sendInbound(from, 'Hi, is my order ready?');
    await waitFor(`${from}'s window`, async () => {
      const rows = await queryRows(
        rig.t.db,
        sql`SELECT 1 FROM cloud_service_windows WHERE session_id = ${accountId} AND phone = ${from}`,
      );
      return rows.length > 0;
    });
  }

  it('sends a text only to numbers that wrote in the last 24 hours; others are refused with nothing reserved', async () => {
    const { t, fake } = rig;
    const a = await account(t, { credits: 10, track: rig.users });
    const cloud = await rig.connect(a.token);
    const outside = await send(a.token, cloud, { content: 'Your table is ready', chatIds: ['919811100061'] });
    expect(outside.statusCode).toBe(400);
    expect(outside.json().message).toBe(CLOUD_TEXTS.outsideWindow(1, 'Shop (Cloud)'));
    expect(outside.json().message).toBe(
      "1 number has not written to Shop (Cloud) in the last 24 hours: outside Meta's customer service window a Cloud API account sends only approved templates",
    );

    await writesIn(cloud, '919811100061');
    const mixed = await send(a.token, cloud, {
      content: 'Your table is ready',
      chatIds: ['919811100061', '919811100062', '919811100063'],
    });
    expect(mixed.json().message).toBe(CLOUD_TEXTS.outsideWindow(2, 'Shop (Cloud)'));
    expect(await balanceOf(t.db, a.user.id)).toBe(10);
    expect(await t.db.select().from(messageJobs).where(eq(messageJobs.userId, a.user.id))).toEqual([]);

    const before = fake.sends.length;
    const inside = await send(a.token, cloud, { content: 'Your table is ready', chatIds: ['919811100061'] });
    expect(inside.statusCode, inside.body).toBe(200);
    const done = await waitForJobEnd(t.app, a.token, inside.json().jobId);
    expect(done).toMatchObject({ status: 'completed' });
    expect(fake.sends.slice(before).map((s) => [s.to, s.body.type, s.body.text?.body])).toEqual([
      ['919811100061', 'text', 'Your table is ready'],
    ]);

    // 24 hours after the number's last message the window is closed again.
    await t.db.execute(
      sql`UPDATE cloud_service_windows SET last_inbound_at = now() - interval '24 hours 1 second' WHERE session_id = ${cloud}`,
    );
    const late = await send(a.token, cloud, { content: 'Still there?', chatIds: ['919811100061'] });
    expect(late.json().message).toBe(CLOUD_TEXTS.outsideWindow(1, 'Shop (Cloud)'));
    // A template goes to anyone.
    const template = await send(a.token, cloud, {
      type: 'template',
      content: { name: 'order_update', language: 'en_US', parameters: ['A-9'] },
      chatIds: ['919811100061', '919811100062'],
    });
    expect(template.statusCode, template.body).toBe(200);
    await waitForJobEnd(t.app, a.token, template.json().jobId);
    expect(await balanceOf(t.db, a.user.id)).toBe(10 - 1 - 2);

    // Erasing the number forgets when it wrote, too.
    const erased = await t.app.inject({
      method: 'DELETE',
      url: '/api/contacts/by-phone/919811100061',
      headers: bearer(a.token),
    });
    expect(erased.statusCode, erased.body).toBe(200);
    expect(
      await queryRows(t.db, sql`SELECT phone FROM cloud_service_windows WHERE session_id = ${cloud}`),
    ).toEqual([]);
  });

  it('spreads one text over a linked phone and a Cloud account: each recipient goes through its own account’s kind', async () => {
    const { t, fake } = rig;
    const a = await account(t, { credits: 10, track: rig.users });
    const phone = await connectedAccount(t, a.token, '919740009001');
    const cloud = await rig.connect(a.token);
    // No daily cap or warm-up on either (equal allowances: the recipients alternate), no pauses.
    await putPolicy(t, a.token, [phone, cloud], { ...OPEN_POLICY, typing: false });
    const chats = ['919811100071', '919811100072', '919811100073', '919811100074'];
    // Outside the window the Cloud account's share is refused, naming how many.
    const refused = await send(a.token, phone, {
      content: 'Sale today',
      chatIds: chats,
      sessionIds: [cloud],
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toMatch(/^2 numbers have not written to Shop \(Cloud\)/);
    for (const c of chats) await writesIn(cloud, c);

    const before = fake.sends.length;
    const res = await send(a.token, phone, { content: 'Sale today', chatIds: chats, sessionIds: [cloud] });
    expect(res.statusCode, res.body).toBe(200);
    const jobId = res.json().jobId as string;
    expect(await waitForJobEnd(t.app, a.token, jobId)).toMatchObject({ status: 'completed' });
    const rows = await recipientsOf(t.db, jobId);
    expect(rows.map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
    const viaCloud = rows.filter((r) => r.accountId === cloud).map((r) => r.chatId.split('@')[0]);
    const viaPhone = rows.filter((r) => r.accountId === phone).map((r) => r.chatId);
    expect(viaCloud.length).toBe(2);
    expect(viaPhone.length).toBe(2);
    // The Cloud account's share went to Meta as texts, once each; the phone's share to the phone's outbox only.
    expect(
      fake.sends
        .slice(before)
        .map((s) => [s.to, s.body.type])
        .sort(),
    ).toEqual(viaCloud.sort().map((to) => [to, 'text']));
    const outbox = await t.app.inject({
      method: 'GET',
      url: `/api/simulator/sessions/${phone}/outbox`,
      headers: bearer(a.token),
    });
    const phoneChats = (outbox.json().messages as Array<{ chatId: string }>).map((m) => m.chatId);
    expect(phoneChats.sort()).toEqual(viaPhone.sort());
    for (const r of rows) expect(r.messageId!.startsWith('wamid.'), r.chatId).toBe(r.accountId === cloud);
    expect(await balanceOf(t.db, a.user.id)).toBe(10 - 4);
  });

  it('the MIS report and its CSV give each Cloud job its template category and Meta’s charge for what was delivered', async () => {
    const { t } = rig;
    const a = await account(t, { credits: 10, track: rig.users });
    const cloud = await rig.connect(a.token);
    const res = await send(a.token, cloud, {
      type: 'template',
      content: { name: 'order_update', language: 'en_US', parameters: ['A-1'] },
      chatIds: ['919811100091', '919811100092'],
    });
    const jobId = res.json().jobId as string;
    // Meta's status webhooks carry pricing.category; each delivered utility message costs ₹0.1150.
    const job = await waitFor('both delivered and charged', async () => {
      const list = await t.app.inject({
        method: 'GET',
        url: `/api/message-jobs/${a.user.id}`,
        headers: bearer(a.token),
      });
      const j = list.json().jobs.find((x: { id: string }) => x.id === jobId);
      return j?.costUnits === 2300 ? j : null;
    });
    expect(job).toMatchObject({ messageType: 'template', templateCategory: 'utility', costUnits: 2300 });
    const csv = await t.app.inject({
      method: 'GET',
      url: `/api/message-jobs/${a.user.id}/export.csv`,
      headers: bearer(a.token),
    });
    const lines = csv.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toMatch(/,Content,Meta Category,Meta Cost \(INR\)$/);
    expect(lines.find((l) => l.startsWith(jobId))).toMatch(/,utility,0\.2300$/);
    expect(lines.at(-1)).toMatch(/^Total,.*,0\.2300$/);
  });
});
