import type { Page } from '@playwright/test';
import { createUser, expect, signInByStorage, test } from '../fixtures.ts';
import { userWithAccount } from './messaging-helpers.ts';
import { finishedJobs, sendIndividual } from './support/jobs.ts';

// The spec's texts stay to the letter; around them the page says what happened.

async function upload(page: Page, name: string, content: string) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Upload CSV or Excel' }).click();
  await (await chooser).setFiles({ name, mimeType: 'text/plain', buffer: Buffer.from(content) });
}

test('the bulk page gives a finished send its counts beside the spec words, and why a file was refused', async ({
  page,
  request,
}) => {
  await userWithAccount(page, request, { credits: 10 });
  await page.goto('/#/bulkmessage');

  await upload(page, 'numbers.pdf', '9800015838\n');
  await expect(page.getByRole('alert')).toHaveText('Please upload a CSV file');
  await expect(
    page.getByText('“numbers.pdf” is neither a .csv nor an Excel .xlsx file; the button takes either.'),
  ).toBeVisible();

  await upload(page, 'numbers.csv', '919800015838\n919800015839\n919800015840\n');
  await expect(page.getByText('“numbers.pdf” is neither')).toHaveCount(0);
  await page
    .getByRole('table', { name: 'Select Phone Numbers' })
    .getByRole('checkbox', { name: 'Select All' })
    .check();
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Shop opens at 10');
  await page.getByRole('button', { name: 'Send Now' }).click();
  const status = page.getByRole('status', { name: 'Status' });
  await expect(status).toContainText('Every message was sent: 3 sent, 0 failed');
  // One verdict: the spec's words, and no second one ('Sending finished') beside them.
  await expect(status).toContainText('Message sending Initiated');
  await expect(status).not.toContainText('finished');
});

test('a PDF that the popup cannot show is named with its type and size above the download link', async ({
  page,
  request,
}) => {
  const { token, sessionId: accountId, user } = await userWithAccount(page, request, { credits: 5 });
  const jobId = await sendIndividual(request, token, accountId, {
    type: 'media',
    mime: 'application/pdf',
    data: Buffer.from('%PDF-1.4 price list').toString('base64'),
    fileName: 'price-list.pdf',
  });
  await finishedJobs(request, token, user.id);
  await page.goto('/#/reports');
  await page
    .getByRole('table', { name: 'MIS Report jobs' })
    .getByRole('row')
    .filter({ has: page.getByTitle(jobId) })
    .getByRole('button', { name: 'Show Media' })
    .click();
  const popup = page.getByRole('dialog', { name: 'Message Content' });
  await expect(popup.getByText('Unsupported media type', { exact: true })).toBeVisible();
  // 19 bytes: '%PDF-1.4 price list'.
  const about = popup.getByText('price-list.pdf · PDF document · 19 bytes', { exact: true });
  await expect(about).toBeVisible();
  const link = popup.getByRole('link', { name: 'Download price-list.pdf' });
  const [aboutBox, linkBox] = [await about.boundingBox(), await link.boundingBox()];
  expect(aboutBox!.y).toBeLessThan(linkBox!.y);
});

test('the sign-up link shows only when the server takes sign-ups, and the form says so when it does not', async ({
  page,
}) => {
  // The e2e server has sign-up on; the same page with the server's meta saying off.
  await page.goto('/#/login');
  await expect(page.getByRole('link', { name: "Don't have an account? Sign up" })).toBeVisible();
  await page.route('**/api/meta', async (route) => {
    const res = await route.fetch();
    await route.fulfill({ response: res, json: { ...(await res.json()), signupEnabled: false } });
  });
  await page.reload();
  await expect(page.getByRole('button', { name: 'Login' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Forgot password?' })).toBeVisible();
  await expect(page.getByRole('link', { name: /Sign up/ })).toHaveCount(0);
  await page.goto('/#/register');
  await expect(page.getByRole('status', { name: 'Sign-up closed' })).toHaveText(
    'Sign-up is closed on this server. Ask your admin to create an account for you.',
  );
  await expect(page.getByRole('button', { name: 'Sign Up' })).toBeDisabled();
});

test.describe('at 360 px', () => {
  test.use({ viewport: { width: 360, height: 740 } });

  test("Add Instance's phone hint fits its field and says which phone", async ({ page, request }) => {
    const user = await createUser(request, { multi: false });
    await signInByStorage(page, request, user.username, user.password);
    await page.goto('/#/instances');
    await page.getByRole('button', { name: 'ADD NEW' }).click();
    const phone = page
      .getByRole('dialog', { name: 'Add New Instance' })
      .getByRole('textbox', { name: 'Phone Number' });
    await expect(phone).toBeVisible();
    // The placeholder's drawn width against the room inside the field.
    const fit = await phone.evaluate((el: HTMLInputElement) => {
      const css = getComputedStyle(el);
      const ctx = document.createElement('canvas').getContext('2d')!;
      ctx.font = `${css.fontWeight} ${css.fontSize} ${css.fontFamily}`;
      const room = el.clientWidth - Number.parseFloat(css.paddingLeft) - Number.parseFloat(css.paddingRight);
      return { text: ctx.measureText(el.placeholder).width, room };
    });
    expect(fit.text).toBeLessThanOrEqual(fit.room);
    await expect(phone).toHaveAccessibleDescription(
      'The number of the phone you are about to link, with its country code.',
    );
  });
});
