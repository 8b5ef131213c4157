import { createUser, expect, signInAsAdmin, test } from '../fixtures.ts';
import { userWithAccount } from './messaging-helpers.ts';
import {
  expectNoSidewaysScroll,
  jobStatus,
  numbers,
  PHONE,
  sendApi,
  shot,
  uploadCsv,
} from './support/customer.ts';

/**
 * The console as a paying customer uses it on a phone (360 × 740:
 * paying-customer.spec.ts). SHOTS_DIR + SHOTS_PHASE (before | after) save the pictures of the note.
 */
test.use({ timezoneId: 'Asia/Kolkata', locale: 'en-IN', confirmSends: true });

test.describe('at 360 × 740', () => {
  test.use({ viewport: PHONE });

  test('5: after Send Now the progress panel is in view', async ({ page, request }) => {
    await userWithAccount(page, request, { credits: 200 });
    await page.goto('/#/bulkmessage');
    await uploadCsv(page, `phone\n${numbers(501, 60).join('\n')}\n`);
    await page
      .getByRole('table', { name: 'Select Phone Numbers' })
      .getByRole('checkbox', { name: 'Select All' })
      .check();
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('From a phone');
    await page.getByRole('button', { name: 'Send Now' }).click();
    const confirm = page.getByRole('dialog', { name: 'Confirm send' });
    if (await confirm.isVisible({ timeout: 3_000 }).catch(() => false))
      await confirm.getByRole('button', { name: 'Send Now' }).click();
    const progress = page.getByRole('region', { name: 'Sending Progress' });
    await expect(progress).toBeAttached();
    await page.waitForTimeout(1_000);
    await shot(page, 5);
    await expect(progress).toBeInViewport({ ratio: 0.5 });
  });

  test('5: the admin sees Users and the Audit log as cards: name and actions without sideways scrolling', async ({
    page,
    request,
  }) => {
    await createUser(request, { credits: 250000, name: 'Narrow Screen Person With A Long Name' });
    await signInAsAdmin(page, request);
    await page.goto('/#/users');
    const users = page.getByRole('list', { name: 'Users' });
    await users.waitFor({ timeout: 5_000 }).catch(() => {});
    await shot(page, 51);
    const card = users
      .getByRole('listitem')
      .filter({ hasText: 'Narrow Screen Person With A Long Name' })
      .first();
    await expect(card).toBeVisible();
    for (const action of [/^Edit /, /^Credits of /, /^Ledger of /])
      await expectNoSidewaysScroll(card.getByRole('button', { name: action }), PHONE.width);

    await page.goto('/#/adminDashboard');
    await page.getByRole('tab', { name: 'Audit log' }).click();
    const audit = page.getByRole('list', { name: 'Audit log' });
    await audit.scrollIntoViewIfNeeded({ timeout: 5_000 }).catch(() => {});
    await shot(page, 52);
    await expect(audit.getByRole('listitem').first()).toBeVisible();
    await expectNoSidewaysScroll(audit.getByRole('listitem').first(), PHONE.width);
  });
});

test.describe('at 360 × 740, Job Details', () => {
  test.use({ viewport: PHONE });

  test("5: a job's recipients show number, status and error without sideways scrolling", async ({
    page,
    request,
  }) => {
    const u = await userWithAccount(page, request, { credits: 5 });
    const jobId = await sendApi(request, u.headers, u.sessionId, {
      chatIds: ['919800510001', '917040510001'],
      content: 'One times out',
    });
    await expect
      .poll(async () => (await jobStatus(request, u.headers, jobId)).status, { timeout: 20_000 })
      .toBe('failed');
    await page.goto('/#/jobs');
    const card = page
      .getByRole('list', { name: 'Message jobs' })
      .getByRole('listitem')
      .filter({ hasText: jobId.slice(0, 8) });
    await card.getByRole('button', { name: 'View' }).click();
    const row = page
      .getByRole('dialog', { name: /^Job Details/ })
      .getByRole('table', { name: 'Recipients' })
      .getByRole('row', { name: /917040510001/ });
    await expect(row).toBeVisible();
    await shot(page, 53);
    await expectNoSidewaysScroll(row.getByText('Send timed out: delivery unknown'), PHONE.width);
  });
});
