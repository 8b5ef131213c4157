import { expect, test } from '../fixtures.ts';
import { balanceBubble, userWithAccount } from './messaging-helpers.ts';
import { violationsWithOpen } from './support/axe.ts';

// A Status post takes a credit per viewer: it is confirmed like every charge.
test.use({ confirmSends: true });

test('Status: the Status tab previews the colour and font, posts to a contact list through the simulator, and Jobs shows it viewed by 2 of 3', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const { headers } = await userWithAccount(page, request, { credits: 10 });
  // On the simulated network, the phones of 9800000082 and 9800000086 view what they get; 9800000081's does not.
  const imported = await request.post('/api/contact-lists/import', {
    headers,
    multipart: {
      name: 'Regulars',
      file: {
        name: 'regulars.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('phone\n9800000081\n9800000082\n9800000086\n'),
      },
    },
  });
  expect(imported.ok()).toBe(true);

  await page.goto('/#/bulkmessage');
  await expect(balanceBubble(page)).toHaveText('Balance: 10');
  await page.getByRole('tab', { name: 'Status' }).click();
  // The message form's buttons give way to the status form.
  await expect(page.getByRole('button', { name: 'Send Now' })).toHaveCount(0);
  await page.getByRole('textbox', { name: 'Status text' }).fill('Fresh mangoes today');
  await page.getByRole('button', { name: 'Colour #7E57C2' }).click();
  await page.getByRole('combobox', { name: 'Font' }).click();
  await page.getByRole('option', { name: 'Courier' }).click();
  const preview = page.getByRole('img', { name: 'Status preview' });
  await expect(preview).toHaveCSS('background-color', 'rgb(126, 87, 194)');
  const previewText = preview.getByTestId('status-preview-text');
  await expect(previewText).toHaveText('Fresh mangoes today');
  await expect(previewText).toHaveCSS('font-family', /Courier New/);

  // The status's own audience picker (the page's recipient lists are another one).
  await page
    .getByRole('tabpanel', { name: 'Status' })
    .getByRole('combobox', { name: 'Contact lists' })
    .click();
  await page.getByRole('option', { name: 'Regulars (3)' }).click();
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Post status' }).click();
  const confirm = page.getByRole('dialog', { name: 'Confirm Status post' });
  expect(await violationsWithOpen(confirm)).toEqual([]);
  await expect(confirm).toContainText('3 recipients · 3 credits · balance after 7');
  await expect(confirm).toContainText('It goes now, as one post');
  // Nothing is taken before the user says yes.
  await expect(balanceBubble(page)).toHaveText('Balance: 10');
  await confirm.getByRole('button', { name: 'Post status' }).click();
  await expect(page.getByRole('status', { name: 'Status result' })).toHaveText(
    'Status posting initiated for 3 contacts',
  );
  await expect(balanceBubble(page)).toHaveText('Balance: 7');

  await page.goto('/#/jobs');
  const table = page.getByRole('table', { name: 'Message jobs' });
  const row = table
    .getByRole('row')
    .filter({ hasText: /status/ })
    .first();
  await expect(row).toContainText('3 / 3', { timeout: 20_000 });
  await row.getByRole('button', { name: 'View' }).click();
  const dialog = page.getByRole('dialog', { name: /^Job Details: / });
  await expect(dialog).toContainText('Message Typestatus');
  await expect(dialog).toContainText('Fresh mangoes today');
  // The simulator's viewers send their read receipts about 5 s after the post.
  await expect(async () => {
    await page.reload();
    await page
      .getByRole('table', { name: 'Message jobs' })
      .getByRole('row')
      .filter({ hasText: /status/ })
      .first()
      .getByRole('button', { name: 'View' })
      .click();
    await expect(page.getByRole('dialog', { name: /^Job Details: / })).toContainText(
      'ViewsViewed by 2 of 3',
      {
        timeout: 2_000,
      },
    );
  }).toPass({ timeout: 30_000 });
});
