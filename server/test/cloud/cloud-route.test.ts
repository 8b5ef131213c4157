import { SPREAD_TEXTS } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { failWhere } from '../../src/messaging/engine/transitions.ts';
import { JOB_MESSAGES } from '../../src/messaging/messages.ts';
import { connectedAccount, putPolicy } from '../fakes/accounts.ts';
import { adminSettingPrices, useCloudApp } from '../fakes/cloud-rig.ts';
import { balanceOf, recipientsOf, retryJob, waitForJobEnd } from '../fakes/messaging.ts';
import { account, bearer, DB_KINDS, OPEN_POLICY } from '../helpers.ts';

/**
 * One job over both kinds: with `coldToCloud` the numbers a linked phone of the job has
 * messaged before go through that phone and the 'cold' ones through the Cloud API account; a
 * template's Cloud share goes to Meta as the template, the phone's share as its body text.
 */
describe.each(DB_KINDS)('cold contacts through the Cloud account on %s', (kind) => {
  const rig = useCloudApp(kind, { SIMULATOR_LINK_AFTER_MS: '3600000' });
  const admin = adminSettingPrices(rig);

  const send = (token: string, accountId: string, payload: Record<string, unknown>) =>
    rig.post(token, `/api/session/${accountId}/sendIndividualMessage`, payload);

  it('sends known numbers through the phone and cold ones through Cloud; the phone sends the template’s body text', async () => {
    const { t, fake } = rig;
    const prices = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/credit-prices',
      headers: bearer(admin.token),
      payload: { linked: 1, cloud: 2 },
    });
    expect(prices.statusCode, prices.body).toBe(200);
    const a = await account(t, { credits: 20, track: rig.users });
    const phone = await connectedAccount(t, a.token, '919740020001');
    const cloud = await rig.connect(a.token);
    await putPolicy(t, a.token, [phone, cloud], { ...OPEN_POLICY, typing: false });
    // The phone has chatted with 919811300001 before.
    const first = await send(a.token, phone, { content: 'Hello', chatIds: ['919811300001'] });
    expect(await waitForJobEnd(t.app, a.token, first.json().jobId)).toMatchObject({ status: 'completed' });

    const alone = await send(a.token, phone, {
      type: 'template',
      content: { name: 'order_update', language: 'en_US', parameters: ['A-7'] },
      chatIds: ['919811300002'],
      coldToCloud: true,
    });
    expect(alone.statusCode).toBe(400);
    expect(alone.json().message).toBe(SPREAD_TEXTS.coldNeedsBothKinds);

    // Before sending: the split, its credits, and Meta's utility rate (₹0.1150) for the Cloud share.
    const estimate = await t.app.inject({
      method: 'POST',
      url: `/api/session/${phone}/send-estimate`,
      headers: bearer(a.token),
      payload: {
        type: 'template',
        content: { name: 'order_update', language: 'en_US', parameters: ['A-7'] },
        chatIds: ['919811300001', '919811300002', '919811300003'],
        sessionIds: [cloud],
        coldToCloud: true,
      },
    });
    expect(estimate.json()).toEqual({
      success: true,
      recipients: 3,
      viaPhones: 1,
      viaCloud: 2,
      credits: 5,
      metaCostUnits: 2 * 1150,
    });

    const before = fake.sends.length;
    const res = await send(a.token, phone, {
      type: 'template',
      content: { name: 'order_update', language: 'en_US', parameters: ['A-7'] },
      chatIds: ['919811300001', '919811300002', '919811300003'],
      sessionIds: [cloud],
      coldToCloud: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ split: { viaPhones: 1, viaCloud: 2 }, creditsCharged: 1 + 2 * 2 });
    const jobId = res.json().jobId as string;
    expect(await waitForJobEnd(t.app, a.token, jobId)).toMatchObject({ status: 'completed' });
    const rows = await recipientsOf(t.db, jobId);
    expect(rows.map((r) => [r.chatId.split('@')[0], r.accountId, r.price, r.status])).toEqual([
      ['919811300001', phone, 1, 'sent'],
      ['919811300002', cloud, 2, 'sent'],
      ['919811300003', cloud, 2, 'sent'],
    ]);
    // Meta got the template for the cold numbers only.
    expect(
      fake.sends
        .slice(before)
        .map((s) => [s.to, s.body.type])
        .sort(),
    ).toEqual([
      ['919811300002', 'template'],
      ['919811300003', 'template'],
    ]);
    // The phone sent the template's body with its value, as a text.
    const outbox = await t.app.inject({
      method: 'GET',
      url: `/api/simulator/sessions/${phone}/outbox`,
      headers: bearer(a.token),
    });
    const texts = (outbox.json().messages as Array<{ chatId: string; text: string | null }>).map((m) => [
      m.chatId.split('@')[0],
      m.text,
    ]);
    expect(texts).toContainEqual(['919811300001', 'Your order A-7 has shipped.']);
    expect(texts.filter(([c]) => c !== '919811300001')).toEqual([]);
    expect(await balanceOf(t.db, a.user.id)).toBe(20 - 1 - 5);

    // Meta refuses the Cloud share after all (a late error status: failed and refunded at 2 each).
    await t.db.transaction((tx) =>
      failWhere(
        tx,
        sql`r.job_id = ${jobId} AND r.session_id = ${cloud}`,
        'Connection Closed',
        'Connection Closed',
        10,
      ),
    );
    expect(await balanceOf(t.db, a.user.id)).toBe(20 - 1 - 5 + 4);
    // A Cloud recipient holds the template's values, not a text: it is not retried on the phone.
    const retry = await retryJob(t.app, a.token, jobId);
    expect(retry.statusCode).toBe(400);
    expect(retry.json().message).toBe(JOB_MESSAGES.retryOtherKind);
    expect(await balanceOf(t.db, a.user.id)).toBe(20 - 1 - 5 + 4);
  });
});
