import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { messageJobs } from '../../src/db/schema.ts';
import { useCloudApp } from '../fakes/cloud-rig.ts';
import { balanceOf, jobRow, recipientsOf } from '../fakes/messaging.ts';
import { bearer, DB_KINDS } from '../helpers.ts';
import { waitFor } from '../wait.ts';

/** Sending templates through a Cloud API account: personalised values, statuses and cost, and what it refuses to send. */
describe.each(DB_KINDS)('Sending through a Cloud API account on %s', (kind) => {
  const rig = useCloudApp(kind);

  it('sends a personalised template to each recipient; statuses (repeated, out of order) give delivered, read, category and cost', async () => {
    const { t, fake, post, cloudAccount } = rig;
    const a = await cloudAccount(10);
    fake.state.webhook = { ...fake.state.webhook!, outOfOrder: true, repeat: 2 };
    const recipients = [
      { chatId: '919811100001', fields: { name: 'Asha', discount: '20%' } },
      { chatId: '919811100002', fields: { name: 'Ravi', discount: '' } },
      { chatId: '919811100003', fields: { name: 'Meena', discount: '15%' } },
    ];
    const res = await post(a.token, `/api/session/${a.accountId}/sendIndividualMessage`, {
      type: 'template',
      content: { name: 'diwali_offer', language: 'en', parameters: ['{{name}}', '{{discount|10%}}'] },
      recipients,
    });
    expect(res.statusCode, res.body).toBe(200);
    const jobId = res.json().jobId as string;
    expect(await balanceOf(t.db, a.user.id)).toBe(7);
    await waitFor('all read', async () => (await jobRow(t.db, jobId))?.readCount === 3, 20_000);
    await fake.flush();

    // What Meta received: the template, its language and each recipient's own values, to E.164 digits.
    const bodies = fake.sends.map((s) => s.body).sort((x, y) => x.to.localeCompare(y.to));
    expect(
      bodies.map((b) => [
        b.to,
        b.template.name,
        b.template.language.code,
        b.template.components[0].parameters.map((p: { text: string }) => p.text),
      ]),
    ).toEqual([
      ['919811100001', 'diwali_offer', 'en', ['Asha', '20%']],
      ['919811100002', 'diwali_offer', 'en', ['Ravi', '10%']],
      ['919811100003', 'diwali_offer', 'en', ['Meena', '15%']],
    ]);
    const job = await jobRow(t.db, jobId);
    expect(job).toMatchObject({
      status: 'completed',
      sentCount: 3,
      deliveredCount: 3,
      readCount: 3,
      messageType: 'template',
    });
    const rows = await recipientsOf(t.db, jobId);
    for (const r of rows) {
      expect(r.messageId).toBe(fake.sends.find((s) => s.to === r.chatId.split('@')[0])!.messageId);
      expect(r.deliveredAt).not.toBeNull();
      expect(r.readAt).not.toBeNull();
      expect(r.pricingCategory).toBe('marketing');
      expect(r.costUnits).toBe(8631);
    }
    // Job Details carry the category and the cost of what was delivered.
    const details = await t.app.inject({
      method: 'GET',
      url: `/api/message-jobs-details/${jobId}`,
      headers: bearer(a.token),
    });
    expect(details.json().job.details[0]).toMatchObject({ pricingCategory: 'marketing', costUnits: 8631 });
    expect(details.json().job.costUnits).toBe(3 * 8631);
  });

  it('refuses what a Cloud account cannot send: an unapproved template, wrong values, groups, a template through a phone', async () => {
    const { t, post, cloudAccount } = rig;
    const a = await cloudAccount(10);
    const send = (payload: unknown, path = 'sendIndividualMessage') =>
      post(a.token, `/api/session/${a.accountId}/${path}`, payload);
    const pending = await send({
      type: 'template',
      content: { name: 'new_launch', language: 'en', parameters: [] },
      chatIds: ['919811100021'],
    });
    expect(pending.json()).toMatchObject({
      success: false,
      message: 'Template new_launch is PENDING: only APPROVED templates can be sent',
    });
    const count = await send({
      type: 'template',
      content: { name: 'diwali_offer', language: 'en', parameters: ['x'] },
      chatIds: ['919811100021'],
    });
    expect(count.json().message).toBe('Template diwali_offer has 2 variables; 1 value was given');
    const unknown = await send({
      type: 'template',
      content: { name: 'nope', language: 'en', parameters: [] },
      chatIds: ['919811100021'],
    });
    expect(unknown.json().message).toBe('No approved template nope (en) on this account');
    const groups = await send({ content: 'hi', chatIds: ['120363000000000001@g.us'] }, 'sendBulkMessage');
    expect(groups.statusCode).toBe(400);
    expect(groups.json().message).toBe('Groups are available for linked phones only');
    const groupList = await t.app.inject({
      method: 'GET',
      url: `/api/groupsList/${a.accountId}`,
      headers: bearer(a.token),
    });
    expect(groupList.statusCode).toBe(400);
    expect(groupList.json().message).toBe('Groups are available for linked phones only');
    const poll = await send({
      type: 'poll',
      content: { pollName: 'Q', pollOptions: ['a', 'b'] },
      chatIds: ['919811100021'],
    });
    expect(poll.json().message).toBe('A Cloud API account sends approved templates: choose a template');
    expect(await balanceOf(t.db, a.user.id)).toBe(10);
    expect(await t.db.select().from(messageJobs).where(eq(messageJobs.userId, a.user.id))).toEqual([]);
  });

  it('refuses a template with a value that is empty, or empty for one recipient, naming the variable; nothing is charged', async () => {
    const { t, post, cloudAccount } = rig;
    const a = await cloudAccount(10);
    const send = (payload: unknown) =>
      post(a.token, `/api/session/${a.accountId}/sendIndividualMessage`, payload);
    const blank = await send({
      type: 'template',
      content: { name: 'diwali_offer', language: 'en', parameters: ['  ', '20%'] },
      chatIds: ['919811100031', '919811100032'],
    });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().message).toBe(
      'Template diwali_offer: {{1}} has no value; give every variable a value',
    );
    const forOne = await send({
      type: 'template',
      content: { name: 'diwali_offer', language: 'en', parameters: ['{{name}}', '20%'] },
      recipients: [
        { chatId: '919811100031', fields: { name: 'Asha' } },
        { chatId: '919811100032', fields: { name: '' } },
      ],
    });
    expect(forOne.statusCode).toBe(400);
    expect(forOne.json().message).toBe(
      'Template diwali_offer: {{1}} would be empty for 919811100032; give the field a value or a fallback, such as {{name|Customer}}',
    );
    expect(await balanceOf(t.db, a.user.id)).toBe(10);
    expect(await t.db.select().from(messageJobs).where(eq(messageJobs.userId, a.user.id))).toEqual([]);
  });

  it('shows the cost before sending', async () => {
    const { t, post, cloudAccount } = rig;
    const a = await cloudAccount(10);
    const res = await post(a.token, `/api/session/${a.accountId}/cost-estimate`, {
      templateName: 'diwali_offer',
      language: 'en',
      recipients: 100,
    });
    expect(res.json()).toMatchObject({
      success: true,
      category: 'marketing',
      costUnits: 863_100,
      text: "≈ ₹86.31 at Meta's marketing rate for 100 recipients",
      now: 100,
      waiting: 0,
      tierText: null,
    });
    // The business's recipients of the last 24 hours (this file's earlier sends, from the same
    // business portfolio) count against its 2,000: they stay counted when an account is removed.
    const [{ used }] = (await queryRows<{ used: number }>(
      t.db,
      sql`SELECT count(*)::int AS used FROM cloud_portfolio_recipients WHERE portfolio = ${rig.fake.portfolioId}`,
    )) as [{ used: number }];
    const many = await post(a.token, `/api/session/${a.accountId}/cost-estimate`, {
      templateName: 'order_update',
      language: 'en_US',
      recipients: 2300,
    });
    const now = 2000 - used;
    expect(many.json()).toMatchObject({
      text: "≈ ₹264.50 at Meta's utility rate for 2,300 recipients",
      now,
      waiting: 2300 - now,
      tierText: `${now.toLocaleString('en-IN')} now, ${(2300 - now).toLocaleString('en-IN')} wait for the 24-hour limit to free up`,
    });
  });
});
