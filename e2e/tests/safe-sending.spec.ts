import { expect, test } from '../fixtures.ts';
import { balanceBubble, localInputValue, userWithAccount, writableGroupNames } from './messaging-helpers.ts';
import { putPolicy, quietNow } from './support/policy.ts';

test('a job waiting on quiet hours says until when, and pauses and resumes from the Jobs page', async ({
  page,
  request,
}) => {
  const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 5 });
  const end = await quietNow(request, headers, accountId);
  const sent = await request.post(`/api/session/${accountId}/sendIndividualMessage`, {
    headers,
    data: { chatIds: ['919822200011', '919822200012', '919822200013'], content: 'After the quiet hours' },
  });
  expect(sent.ok(), await sent.text()).toBe(true);

  await page.goto('/#/jobs');
  const table = page.getByRole('table', { name: 'Message jobs' });
  const reason = page.getByText(`Waiting: quiet hours until ${end}`);
  await expect(async () => {
    await page
      .getByRole('button', { name: /refresh/i })
      .first()
      .click();
    await expect(reason).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 30_000 });
  // For a note or a review: SCREENSHOTS_DIR=<dir> saves what the user sees here.
  if (process.env.SCREENSHOTS_DIR)
    await page.screenshot({
      path: `${process.env.SCREENSHOTS_DIR}/job-waiting-quiet-hours.png`,
      fullPage: true,
    });

  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await expect(page.getByText('Job paused')).toBeVisible({ timeout: 15_000 });
  await expect(table.getByText('paused', { exact: true })).toBeVisible({ timeout: 15_000 });
  // Listed under Active too, with its PAUSED badge (the badge's capitals are CSS) and Resume.
  await page.getByRole('tab', { name: /^Active/ }).click();
  await expect(table.getByText('paused', { exact: true })).toHaveCSS('text-transform', 'uppercase');
  await expect(table.getByRole('button', { name: 'Resume', exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Resume', exact: true }).click();
  await expect(page.getByText('Job resumed')).toBeVisible({ timeout: 15_000 });
  await expect(reason).toBeVisible({ timeout: 15_000 });
});

test("the Account settings drawer saves the account's policy, shows the contract's messages by their fields and today's count", async ({
  page,
  request,
}) => {
  const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 5 });
  const sent = await request.post(`/api/session/${accountId}/sendIndividualMessage`, {
    headers,
    data: { chatIds: ['919822200021', '919822200022'], content: 'Before the limit' },
  });
  expect(sent.ok(), await sent.text()).toBe(true);
  const { jobId } = (await sent.json()) as { jobId: string };
  await expect
    .poll(async () => {
      const res = await request.get(`/api/message-jobs-details/${jobId}?detailsLimit=0&media=0`, { headers });
      return ((await res.json()) as { job: { status: string } }).job.status;
    })
    .toBe('completed');

  await page.goto('/#/instances');
  await page.getByRole('button', { name: /^Account settings / }).click();
  const drawer = page.getByRole('dialog');
  await expect(drawer.getByText('Sent today: 2 (no daily limit)')).toBeVisible();
  // The test server's pause (0 ms) in seconds.
  await expect(drawer.getByLabel('Pause from (seconds)')).toHaveValue('0');

  await drawer.getByLabel('Pause from (seconds)').fill('9');
  await drawer.getByLabel('Pause to (seconds)').fill('8');
  await drawer.getByLabel('Daily limit').fill('0');
  await drawer.getByRole('button', { name: 'Save settings' }).click();
  // The form's own words, not the API's field names.
  await expect(drawer.getByText('Pause from must not be longer than Pause to')).toBeVisible();
  await expect(
    drawer.getByText('Daily limit must be a whole number from 1 to 100,000 (leave it empty for no limit)'),
  ).toBeVisible();
  await expect(drawer.getByText(/null|delayMaxMs|delayMinMs|dailyLimit/)).toHaveCount(0);
  // The field itself says it is wrong (a screen reader hears the message with it).
  await expect(drawer.getByLabel('Daily limit')).toHaveAttribute('aria-invalid', 'true');

  await expect(drawer.getByLabel('Pause from (seconds)')).toHaveAttribute('aria-invalid', 'true');
  expect(
    (
      (await (await request.get(`/api/session/${accountId}/policy`, { headers })).json()) as {
        policy: { dailyLimit: unknown };
      }
    ).policy.dailyLimit,
  ).toBeNull();

  await drawer.getByLabel('Daily limit').fill('30');
  // Pauses in seconds, to the tenth.
  await drawer.getByLabel('Pause from (seconds)').fill('1.5');
  await drawer.getByRole('switch', { name: 'Quiet hours' }).check({ force: true });
  await drawer.getByLabel('Quiet from').fill('22:00');
  await drawer.getByLabel('Quiet until').fill('07:00');
  await drawer.getByRole('button', { name: 'Save settings' }).click();
  await expect(drawer.getByText('Settings saved')).toBeVisible();
  await expect(drawer.getByText('Sent today: 2 of 30')).toBeVisible();

  const stored = await request.get(`/api/session/${accountId}/policy`, { headers });
  expect(((await stored.json()) as { policy: unknown }).policy).toMatchObject({
    dailyLimit: 30,
    quietHours: { start: '22:00', end: '07:00' },
    delayMinMs: 1500,
    delayMaxMs: 8000,
    timezone: 'Asia/Kolkata',
  });
  if (process.env.SCREENSHOTS_DIR)
    await page.screenshot({ path: `${process.env.SCREENSHOTS_DIR}/settings-drawer.png`, fullPage: true });
});

test('the Sending Progress panel pauses and resumes the job it shows', async ({ page, request }) => {
  const { user, sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 20 });
  // A second between messages: the job (six groups, 5 s) runs long enough to be paused from the
  // panel, which takes under a second after Send Now.
  await putPolicy(request, headers, accountId, { delayMinMs: 1000, delayMaxMs: 1000 });
  const groups = (await writableGroupNames(request, headers, accountId)).slice(0, 6);
  await page.goto('/#/compose');
  const table = page.getByRole('table', { name: 'Select Groups' });
  for (const name of groups)
    await table.getByRole('checkbox', { name: `Select ${name}`, exact: true }).check();
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Paused from the panel');
  await page.getByRole('button', { name: 'Send Now' }).click();

  const panel = page.getByRole('region', { name: 'Sending Progress' });
  await panel.getByRole('button', { name: 'Pause' }).click();
  await expect(panel.getByText('Job paused')).toBeVisible();
  await expect(panel.getByLabel('Status: paused')).toBeVisible();
  const jobs = await request.get(`/api/message-jobs/${user.id}`, { headers });
  const [job] = ((await jobs.json()) as { jobs: { id: string; results: { success: number } }[] }).jobs;
  const sentAtPause = job!.results.success;
  expect(sentAtPause).toBeLessThan(6);
  // Nothing more is sent while it is paused (three pauses' worth of time).
  await page.waitForTimeout(3000);
  const still = await request.get(`/api/message-jobs-details/${job!.id}?detailsLimit=0&media=0`, { headers });
  expect(
    ((await still.json()) as { job: { status: string; results: { success: number } } }).job,
  ).toMatchObject({
    status: 'paused',
    results: { success: sentAtPause },
  });

  await panel.getByRole('button', { name: 'Resume' }).click();
  await expect(panel.getByText('Job resumed')).toBeVisible();
  await expect(page.getByRole('status', { name: 'Status' })).toContainText(
    'Message sending complete! Successfully sent to 6 groups.',
    { timeout: 30_000 },
  );
});

test('a repeating job is scheduled from the schedule modal, listed under Scheduled with its rhythm, and cancelled as a series', async ({
  page,
  request,
}) => {
  const { user, sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 20 });
  const groups = (await writableGroupNames(request, headers, accountId)).slice(0, 2);
  await page.goto('/#/compose');
  const table = page.getByRole('table', { name: 'Select Groups' });
  for (const name of groups)
    await table.getByRole('checkbox', { name: `Select ${name}`, exact: true }).check();
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Every week');
  await page.getByRole('button', { name: 'Schedule Message' }).click();

  const dialog = page.getByRole('dialog', { name: 'Schedule Message' });
  const at = new Date(Date.now() + 2 * 3_600_000);
  await dialog.getByLabel('Schedule time').fill(localInputValue(at));
  await dialog.getByRole('combobox', { name: 'Repeat', exact: true }).click();
  await page.getByRole('option', { name: 'Every week' }).click();
  // An end before the first time is refused inside the modal.
  const day = (d: Date) =>
    `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  await dialog.getByLabel('Repeat until').fill(day(new Date(at.getTime() - 2 * 86_400_000)));
  await dialog.getByRole('button', { name: 'Schedule Message' }).click();
  await expect(dialog.getByRole('alert')).toHaveText(
    'repeat.until must be a date and time after scheduleTime',
  );
  const until = new Date(at.getTime() + 20 * 86_400_000);
  await dialog.getByLabel('Repeat until').fill(day(until));
  const label = `Repeats weekly until ${new Date(`${day(until)}T23:59:59.999`).toLocaleDateString('en-IN')}`;
  await expect(dialog.getByText(label)).toBeVisible();
  await dialog.getByRole('button', { name: 'Schedule Message' }).click();
  await expect(page.getByRole('status', { name: 'Status' })).toContainText('Message scheduled successfully!');

  // Nothing is reserved until an occurrence starts.
  await expect(balanceBubble(page)).toContainText('20');

  await page.goto('/#/jobs');
  await page.getByRole('tab', { name: /^Scheduled/ }).click();
  const jobs = page.getByRole('table', { name: 'Message jobs' });
  await expect(jobs.getByText(label)).toBeVisible();
  await jobs.getByRole('button', { name: 'Cancel series' }).click();
  await expect(page.getByText('Series cancelled')).toBeVisible();
  await expect(page.getByText('No scheduled jobs found.')).toBeVisible();
  const left = await request.get(`/api/message-jobs/${user.id}?status=all`, { headers });
  expect(((await left.json()) as { jobs: unknown[] }).jobs).toEqual([]);
});
