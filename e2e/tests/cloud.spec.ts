import { createUser, expect, signInByStorage, test } from '../fixtures.ts';

/**
 * A Cloud API account end to end, against the fake Graph API that playwright.config.ts
 * starts beside the product (server/test/fakes/graph-api-main.ts: Meta's documented requests,
 * answers and signed status webhooks).
 */
const CONTROL = `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 3100) + 501}`;

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
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Upload CSV' }).click();
  await (await chooser).setFiles({
    name: 'customers.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('Phone Number,Name\n919811100081,Asha\n919811100082,Ravi\n', 'utf8'),
  });
  const contacts = page.getByRole('table', { name: 'Select Phone Numbers' });
  await contacts.getByRole('checkbox', { name: 'Select All' }).check();
  await expect(page.getByText('2 of 2 selected')).toBeVisible();
  await page.getByRole('combobox', { name: 'Template' }).click();
  await page.getByRole('option', { name: 'order_update (en_US, utility)' }).click();
  await expect(page.getByText('Hello {{1}}, your order {{2}} has shipped.')).toBeVisible();
  await page.getByRole('textbox', { name: '{{1}}' }).fill('{{name}}');
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
  await expect(dialog).toContainText('{{1}} → {{name}}');
  await expect(dialog).toContainText("Meta's charge for the delivered messages: ₹0.23");
  await page.keyboard.press('Escape');

  // The MIS Report names the template's category and Meta's charge for the job.
  await page.goto('/#/reports');
  const report = page.getByRole('row').filter({ hasText: jobId.slice(0, 8) });
  await expect(report.getByLabel("Meta's charge")).toHaveText('utility · ₹0.23');
});
