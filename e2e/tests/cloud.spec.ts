import { createUser, expect, signInByStorage, test } from '../fixtures.ts';
import { violationsWithOpen } from './support/axe.ts';
import { uploadList } from './support/bulk.ts';

/**
 * A Cloud API account end to end, against the fake Graph API that playwright.config.ts
 * starts beside the product (server/test/fakes/graph-api-main.ts: Meta's documented requests,
 * answers and signed status webhooks).
 */
const CONTROL = `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 3100) + 501}`;

// A template send is confirmed like every charge.
test.use({ confirmSends: true });

test('connect a Cloud API number, send a template mapped to each contact’s name, see it delivered and read with Meta’s charge', async ({
  page,
  request,
}) => {
  const creds = (await (await request.get(`${CONTROL}/`)).json()) as Record<string, string>;
  const user = await createUser(request, { credits: 10 });
  await signInByStorage(page, request, user.username, user.password);

  await page.goto('/#/instances');
  await page.getByRole('button', { name: 'Connect Cloud API' }).click();
  const form = page.getByRole('dialog', { name: 'Connect Cloud API' });
  await form.getByLabel('Session Name').fill('Shop (Cloud)');
  await form.getByLabel('Phone number ID').fill(creds.phoneNumberId!);
  await form.getByLabel('WhatsApp Business Account ID').fill(creds.wabaId!);
  await form.getByLabel('Access token').fill('EAAJB-wrong-token');
  await form.getByLabel('App secret').fill(creds.appSecret!);
  await form.getByLabel('Verify token').fill('my-verify-token');
  await form.getByRole('button', { name: 'Connect', exact: true }).click();
  // Meta's own words when the token is wrong.
  await expect(form.getByRole('alert')).toContainText('Error validating access token');
  await form.getByLabel('Access token').fill(creds.accessToken!);
  await form.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(form).toHaveCount(0);
  const row = page.getByRole('row').filter({ hasText: 'Shop (Cloud)' });
  await expect(row).toContainText('Cloud API');
  // Connected once the engine's node has asked Meta for the number with the token (Refresh shows it).
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(row).toContainText('CONNECTED', { timeout: 2000 });
  }).toPass({ timeout: 30_000 });
  await expect(row.getByLabel('Quality rating GREEN')).toBeVisible();
  // The callback URL the user pastes into Meta's App Dashboard: the fake posts its webhooks there.
  const webhook = (await row.getByText(/\/api\/cloud\/webhook\//).textContent())!.replace(/^Webhook: /, '');
  expect(webhook).toMatch(/\/api\/cloud\/webhook\/919800015838_/);
  expect((await request.post(`${CONTROL}/webhook`, { data: { url: webhook } })).ok()).toBe(true);

  await page.goto('/#/bulkmessage');
  await uploadList(page, 'customers.csv', 'Phone Number,Name\n919811100081,Asha\n919811100082,Ravi\n');
  const contacts = page.getByRole('table', { name: 'Select Phone Numbers' });
  await contacts.getByRole('checkbox', { name: 'Select All' }).check();
  await expect(page.getByText('2 of 2 selected')).toBeVisible();
  await page.getByRole('combobox', { name: 'Template' }).click();
  await page.getByRole('option', { name: 'order_update (en_US, utility)' }).click();
  await expect(page.getByText('Hello {{1}}, your order {{2}} has shipped.')).toBeVisible();
  await page.getByRole('textbox', { name: '{{1}}' }).fill('{{name}}');
  // A variable left empty would reach the customers as nothing ('Hello , your order'): refused on the page.
  await page.getByRole('button', { name: 'Send template to 2' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Template order_update:' })).toHaveText(
    'Template order_update: {{2}} has no value; give every variable a value',
  );
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await page.getByRole('textbox', { name: '{{2}}' }).fill('A-1001');
  const preview = page.getByRole('table', { name: 'Preview per recipient' });
  await expect(preview.getByRole('row').filter({ hasText: '919811100081' })).toContainText(
    'Hello Asha, your order A-1001 has shipped.',
  );
  await expect(preview.getByRole('row').filter({ hasText: '919811100082' })).toContainText(
    'Hello Ravi, your order A-1001 has shipped.',
  );
  // Meta's utility rate for India (₹0.1150) × 2, before sending.
  await expect(page.getByRole('status', { name: "Meta's charge" })).toContainText(
    "≈ ₹0.23 at Meta's utility rate for 2 recipients",
  );
  await page.getByRole('button', { name: 'Send template to 2' }).click();
  // The confirmation: credits per kind of account, Meta's charge, the balance after, each recipient's text.
  const confirm = page.getByRole('dialog', { name: 'Send template order_update' });
  expect(await violationsWithOpen(confirm)).toEqual([]);
  await expect(confirm).toContainText('2 recipients · 2 credits · balance after 8');
  await expect(confirm).toContainText('Cloud API account: 2 × 1 credit = 2 credits');
  await expect(confirm.getByLabel("Meta's charge")).toHaveText("Meta's estimated charge: ≈ ₹0.23 (utility)");
  await expect(confirm.getByRole('row').filter({ hasText: '919811100082' })).toContainText(
    'Hello Ravi, your order A-1001 has shipped.',
  );
  await expect(page.getByLabel('Account Balance')).toHaveText('Balance: 10');
  await confirm.getByRole('button', { name: 'Send template to 2' }).click();
  // Every balance on screen follows the charge at once.
  await expect(page.getByLabel('Account Balance')).toHaveText('Balance: 8');
  const sent = page
    .getByRole('status')
    .filter({ hasText: /Message sending initiated for 2 contacts \(job / });
  await expect(sent).toBeVisible();
  const jobId = /\(job ([^)]+)\)/.exec((await sent.textContent())!)![1]!;

  await page.goto('/#/jobs');
  const jobs = page.getByRole('table', { name: 'Message jobs' });
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(jobs.getByRole('row').filter({ hasText: jobId.slice(0, 8) })).toContainText('completed', {
      timeout: 2000,
    });
  }).toPass({ timeout: 30_000 });
  const dialog = page.getByRole('dialog', { name: `Job Details: ${jobId}` });
  const recipients = dialog.getByRole('table', { name: 'Recipients' });
  // Meta's statuses (sent, delivered, read) arrive by signed webhook a moment apart; the dialog
  // shows them as of its opening, so it is opened again until both are read.
  await expect(async () => {
    if (await dialog.isVisible()) await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await jobs
      .getByRole('row')
      .filter({ hasText: jobId.slice(0, 8) })
      .getByRole('button', { name: 'View' })
      .click();
    for (const n of ['919811100081', '919811100082'])
      await expect(recipients.getByRole('row').filter({ hasText: n })).toContainText('read', {
        timeout: 2000,
      });
  }).toPass({ timeout: 30_000 });
  await expect(dialog).toContainText('Template order_update (en_US)');
  await expect(dialog).toContainText('order_update: Hello {{name}}, your order A-1001 has shipped.');
  await expect(dialog).toContainText("Meta's charge for the delivered messages: ₹0.23");
  await page.keyboard.press('Escape');

  // The MIS Report names the template's category and Meta's charge for the job.
  await page.goto('/#/reports');
  const report = page.getByRole('row').filter({ hasText: jobId.slice(0, 8) });
  await expect(report.getByLabel("Meta's charge")).toHaveText('utility · ₹0.23');
  // The template's name and text, never its stored JSON, in the report, Message Jobs and on the Dashboard.
  await expect(report).toContainText('order_update: H...');
  await expect(report).not.toContainText('{"');
  await page.goto('/#/jobs');
  const jobRow = jobs.getByRole('row').filter({ hasText: jobId.slice(0, 8) });
  await expect(jobRow).toContainText('order_update: Hello {{name}}, your order A-1001 has shipped.');
  await expect(jobRow).not.toContainText('{"');
  await page.goto('/#/dashboard');
  await expect(
    page
      .getByRole('listitem')
      .filter({ hasText: 'order_update: Hello {{name}}, your order A-1001 has shipped.' }),
  ).toBeVisible();
  await expect(page.getByText('{"name"')).toHaveCount(0);
});
