import type { Page } from '@playwright/test';
import { expect, test } from '../fixtures.ts';
import { userWithAccount } from './messaging-helpers.ts';
import { violationsWithOpen } from './support/axe.ts';
import { uploadList } from './support/bulk.ts';
import { numbers } from './support/customer.ts';
import { PNG_1X1 } from './support/jobs.ts';

/** Nothing typed is lost: Group and Bulk Messaging keep a draft per page and user in the browser. */

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main navigation' });
const note = (page: Page) => page.getByRole('status', { name: 'Draft restored' });
const shot = (page: Page, name: string) =>
  page.screenshot({ path: `/tmp/rough-shots/${name}.png`, fullPage: true });

test('Group Messaging: the photo, its caption and the ticked groups come back after a sidebar link and a reload; Discard draft clears them', async ({
  page,
  request,
}) => {
  await userWithAccount(page, request, { credits: 20 });
  await page.goto('/#/compose');
  const groups = page.getByRole('table', { name: 'Select Groups' });
  const boxes = groups.getByRole('checkbox', { name: /^Select (?!All|Announcements)/ });
  await boxes.nth(0).check();
  await boxes.nth(1).check();
  await expect(page.getByText('2 of 12 selected')).toBeVisible();
  await page.getByRole('tab', { name: 'Media Message' }).click();
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Select File' }).click();
  await (await chooser).setFiles({ name: 'offer.png', mimeType: 'image/png', buffer: PNG_1X1 });
  await page.getByRole('textbox', { name: 'Caption (optional)' }).fill('Diwali offer: 20% off');
  await expect(note(page)).toHaveCount(0);

  await nav(page).getByRole('link', { name: 'Message Jobs' }).click();
  await expect(page.getByRole('heading', { name: /Message Jobs/ })).toBeVisible();
  await nav(page).getByRole('link', { name: 'Group Messaging' }).click();
  await expect(note(page)).toContainText('Your unsent draft from');
  await expect(page.getByRole('tab', { name: 'Media Message' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByText('offer.png')).toBeVisible();
  await expect(page.getByRole('img', { name: 'Preview of offer.png' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Caption (optional)' })).toHaveValue(
    'Diwali offer: 20% off',
  );
  await expect(page.getByText('2 of 12 selected')).toBeVisible();
  await shot(page, 'draft-compose-1280');
  await page.setViewportSize({ width: 360, height: 740 });
  await shot(page, 'draft-compose-360');
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.reload();
  await expect(note(page)).toBeVisible();
  await expect(page.getByText('2 of 12 selected')).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Caption (optional)' })).toHaveValue(
    'Diwali offer: 20% off',
  );

  await note(page).getByRole('button', { name: 'Discard draft' }).click();
  await expect(note(page)).toHaveCount(0);
  await expect(page.getByText('0 of 12 selected')).toBeVisible();
  await expect(page.getByText('No file selected')).toBeVisible();
  await page.reload();
  await expect(page.getByText('0 of 12 selected')).toBeVisible();
  // Nothing kept: the page opens as new, on its first tab.
  await expect(page.getByRole('tab', { name: 'Text Message' })).toHaveAttribute('aria-selected', 'true');
  await expect(note(page)).toHaveCount(0);
});

test("Bulk Messaging: leaving with 150 ticked numbers asks first (a link or the browser's Back); Back brings the file, the ticks and the message again; a send ends the draft", async ({
  page,
  request,
}) => {
  await userWithAccount(page, request, { credits: 200 });
  // Reached from the Dashboard, so that the browser's Back has a page of the app to go to.
  await page.goto('/#/dashboard');
  await nav(page).getByRole('link', { name: 'Bulk Messaging' }).click();
  await uploadList(page, 'customers.csv', `phone\n${numbers(601, 150).join('\n')}\n`);
  await page
    .getByRole('table', { name: 'Select Phone Numbers' })
    .getByRole('checkbox', { name: 'Select All' })
    .check();
  await expect(page.getByText('150 of 150 selected')).toBeVisible();
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Fresh stock arrived');

  // A sidebar link asks: Stay keeps the page as it is.
  await nav(page).getByRole('link', { name: 'Message Jobs' }).click();
  const ask = page.getByRole('dialog', { name: 'Leave without sending?' });
  await expect(ask).toContainText('150 recipients are ticked and nothing has been sent to them.');
  await shot(page, 'leave-guard-1280');
  expect(await violationsWithOpen(ask)).toEqual([]);
  await ask.getByRole('button', { name: 'Stay' }).click();
  await expect(ask).toHaveCount(0);
  await expect(page.getByRole('heading', { name: 'Send Bulk Message' })).toBeVisible();
  await expect(page.getByText('150 of 150 selected')).toBeVisible();

  // The browser's Back asks the same; Stay keeps the page and its address.
  await page.evaluate(() => window.history.back());
  await expect(ask).toContainText('150 recipients are ticked and nothing has been sent to them.');
  await ask.getByRole('button', { name: 'Stay' }).click();
  await expect(ask).toHaveCount(0);
  await expect(page).toHaveURL(/#\/bulkmessage$/);
  await expect(page.getByText('150 of 150 selected')).toBeVisible();

  await nav(page).getByRole('link', { name: 'Message Jobs' }).click();
  await ask.getByRole('button', { name: 'Leave' }).click();
  await expect(page.getByRole('heading', { name: /Message Jobs/ })).toBeVisible();
  await page.goBack();
  await expect(note(page)).toBeVisible();
  await expect(page.getByRole('status', { name: 'Upload result' })).toHaveText(
    'customers.csv: 150 phone numbers loaded. Skipped 1 line: 1 without a number (header or text).',
  );
  await expect(page.getByText('150 of 150 selected')).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Message', exact: true })).toHaveValue(
    'Fresh stock arrived',
  );
  await shot(page, 'draft-bulk-1280');

  await page.getByRole('button', { name: 'Send Now' }).click();
  const confirm = page.getByRole('dialog', { name: 'Confirm send' });
  if (await confirm.isVisible()) await confirm.getByRole('button', { name: 'Send Now' }).click();
  await expect(page.getByText('0 of 150 selected')).toBeVisible();
  // Sent: nothing to ask about, nothing to restore.
  await nav(page).getByRole('link', { name: 'Message Jobs' }).click();
  await expect(page.getByRole('heading', { name: /Message Jobs/ })).toBeVisible();
  await nav(page).getByRole('link', { name: 'Bulk Messaging' }).click();
  await expect(page.getByRole('heading', { name: 'Send Bulk Message' })).toBeVisible();
  await expect(page.getByText('No contacts uploaded')).toBeVisible();
  await expect(note(page)).toHaveCount(0);
});
