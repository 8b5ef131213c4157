import { expect, test } from '../fixtures.ts';
import { ANNOUNCE_ONLY, balanceBubble, userWithAccount } from './messaging-helpers.ts';
import { failedJobRow, jobStatus, numbers, sendApi, shot, uploadCsv } from './support/customer.ts';
import { bigSendOnWarmingAccount } from './support/policy.ts';

/**
 * The console as a paying customer uses it, at 1280 × 800 (on a
 * phone: paying-customer-phone.spec.ts). SHOTS_DIR + SHOTS_PHASE (before | after) save the
 * pictures of the note.
 */
test.use({ timezoneId: 'Asia/Kolkata', locale: 'en-IN', confirmSends: true });

const FORECAST = '46 today, the rest from tomorrow 00:00 (warm-up: 50 a day)';

test.describe('at 1280 × 800', () => {
  test('1: before a big send the page says what the warm-up will do; the waiting job says WAITING, why and until when, in its row', async ({
    page,
    request,
  }) => {
    test.setTimeout(120_000);
    await bigSendOnWarmingAccount(page, request);
    const forecast = page.getByRole('status', { name: 'What the account will send' });
    await forecast.scrollIntoViewIfNeeded({ timeout: 5_000 }).catch(() => {});
    await shot(page, 1);
    // Soft: the test goes on to the Jobs page, where a waiting job must say so too.
    await expect.soft(forecast).toContainText(FORECAST, { timeout: 5_000 });

    await page.getByRole('button', { name: 'Send Now' }).click();
    const confirm = page.getByRole('dialog', { name: 'Confirm send' });
    await expect.soft(confirm).toBeVisible({ timeout: 5_000 });
    if (await confirm.isVisible()) {
      await expect(confirm).toContainText('The last message is expected to go on');
      await confirm.getByRole('button', { name: 'Send Now' }).click();
    }

    await page.goto('/#/jobs');
    const row = page
      .getByRole('table', { name: 'Message jobs' })
      .getByRole('row')
      .filter({ hasText: 'Diwali offer' });
    await expect(async () => {
      await page.getByRole('button', { name: 'Refresh' }).first().click();
      await expect(
        row.getByText('Waiting: warm-up limit of 50 messages a day reached', { exact: false }),
      ).toBeVisible({
        timeout: 2_000,
      });
    }).toPass({ timeout: 30_000 });
    await shot(page, 11);
    await expect(row.getByText('waiting', { exact: true })).toBeVisible();
    await expect(row.getByText('processing', { exact: true })).toHaveCount(0);
    await expect(row).toContainText('resumes at 00:00');
  });

  test('2: Send Now asks with recipients, credits and the balance after (until turned off for small sends); Schedule and Delete say credits are held and refunded', async ({
    page,
    request,
  }) => {
    const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 10 });
    await page.goto('/#/bulkmessage');
    await expect(balanceBubble(page)).toHaveText('Balance: 10');
    await uploadCsv(page, `phone\n${numbers(201, 3).join('\n')}\n`);
    const table = page.getByRole('table', { name: 'Select Phone Numbers' });
    await table.getByRole('checkbox', { name: 'Select All' }).check();
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Your order is ready');
    await page.getByRole('button', { name: 'Send Now' }).click();
    const confirm = page.getByRole('dialog', { name: 'Confirm send' });
    await expect(confirm)
      .toBeVisible({ timeout: 3_000 })
      .catch(() => {});
    await shot(page, 2);
    await expect(confirm).toContainText('3 recipients · 3 credits · balance after 7');
    // Nothing is spent before the user confirms.
    await expect(balanceBubble(page)).toHaveText('Balance: 10');
    await confirm.getByRole('checkbox', { name: /Do not ask again for sends of fewer than/ }).check();
    await confirm.getByRole('textbox', { name: 'Recipients' }).fill('5');
    await confirm.getByRole('button', { name: 'Send Now' }).click();
    await expect(page.getByRole('status', { name: 'Status' })).toContainText('3 sent, 0 failed', {
      timeout: 20_000,
    });
    await expect(balanceBubble(page)).toHaveText('Balance: 7');

    // Below the chosen size the next send goes at once; the preference outlives a reload.
    await page.reload();
    await uploadCsv(page, `phone\n${numbers(211, 2).join('\n')}\n`);
    await table.getByRole('checkbox', { name: 'Select All' }).check();
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Second message');
    await page.getByRole('button', { name: 'Send Now' }).click();
    await expect(page.getByRole('status', { name: 'Status' })).toContainText('2 sent, 0 failed', {
      timeout: 20_000,
    });
    await expect(confirm).toHaveCount(0);
    await expect(balanceBubble(page)).toHaveText('Balance: 5');

    // The schedule modal: the cost, and that the credits are held now and refunded on delete.
    await uploadCsv(page, `phone\n${numbers(221, 2).join('\n')}\n`);
    await table.getByRole('checkbox', { name: 'Select All' }).check();
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Later');
    await page.getByRole('button', { name: 'Schedule Message' }).click();
    const schedule = page.getByRole('dialog', { name: 'Schedule Message' });
    await expect(schedule).toContainText('2 recipients · 2 credits · balance after 3');
    await expect(schedule).toContainText(
      'The credits are held now and refunded if you delete the job before it is sent.',
    );

    const jobId = await sendApi(request, headers, accountId, {
      chatIds: numbers(231, 2),
      content: 'Scheduled by the API',
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
    });
    await page.goto('/#/jobs');
    await page
      .getByRole('table', { name: 'Message jobs' })
      .getByRole('row')
      .filter({ hasText: jobId.slice(0, 8) })
      .getByRole('button', { name: 'Delete' })
      .click();
    await expect(page.getByRole('dialog', { name: 'Confirm Delete' })).toContainText(
      'Its 2 unsent messages hold 2 credits: they are refunded.',
    );
  });

  test('3: a contact list shows who receives (opted-out marked and left out), the preview only them, and {{first_name}} with a fallback', async ({
    page,
    request,
  }) => {
    const u = await userWithAccount(page, request, { credits: 10 });
    const csv =
      'Name,Mobile\n"Kumar, Arjun",9800150001\nPriya Sharma,9800150002\n,9800150003\nOpted Person,9800150004\n';
    const imported = await request.post('/api/contact-lists/import', {
      headers: u.headers,
      multipart: {
        name: 'Karol Bagh customers',
        file: { name: 'c.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) },
      },
    });
    expect(imported.ok(), await imported.text()).toBe(true);
    const opted = await request.post('/api/opt-outs', {
      headers: u.headers,
      data: { phoneNumbers: ['919800150004'] },
    });
    expect(opted.ok(), await opted.text()).toBe(true);

    await page.goto('/#/bulkmessage');
    await page.getByRole('combobox', { name: 'Contact lists' }).click();
    await page.getByRole('option', { name: /Karol Bagh customers/ }).click();
    await page.keyboard.press('Escape');
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Hello {{name}}');
    await shot(page, 3, true);
    const recipients = page.getByRole('region', { name: 'Recipients from contact lists' });
    await expect(recipients).toContainText('3 of 4 contacts receive the message; 1 opted out is left out');
    await expect(recipients.getByRole('row', { name: /919800150004/ })).toContainText('Opted out: left out');
    await expect(page.getByText('No contacts uploaded')).toHaveCount(0);
    const preview = page.getByRole('region', { name: 'Message preview' });
    await expect(preview.getByLabel(/^Preview for/)).toHaveCount(3);
    await expect(preview.getByLabel('Preview for 919800150004')).toHaveCount(0);

    // {{first_name}} with a fallback for a blank name, from the editor.
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Hello ');
    await page.getByRole('textbox', { name: 'Fallback when blank' }).fill('friend');
    await page.getByRole('button', { name: 'Insert {{first_name}}' }).click();
    await expect(page.getByRole('textbox', { name: 'Message', exact: true })).toHaveValue(
      'Hello {{first_name|friend}}',
    );
    await expect(preview.getByLabel('Preview for 919800150001')).toContainText('Hello Arjun');
    await expect(preview.getByLabel('Preview for 919800150002')).toContainText('Hello Priya');
    await expect(preview.getByLabel('Preview for 919800150003')).toContainText('Hello friend');

    // The server renders the same: what was sent is what the preview showed.
    await page.getByRole('button', { name: 'Send Now' }).click();
    await page
      .getByRole('dialog', { name: 'Confirm send' })
      .getByRole('button', { name: 'Send Now' })
      .click();
    await expect(page.getByRole('status', { name: 'Status' })).toContainText('3 sent, 0 failed', {
      timeout: 20_000,
    });
    const jobs = (await (
      await request.get(`/api/message-jobs/${u.user.id}`, { headers: u.headers })
    ).json()) as {
      jobs: { id: string }[];
    };
    const details = (await (
      await request.get(`/api/message-jobs-details/${jobs.jobs[0]!.id}`, { headers: u.headers })
    ).json()) as { job: { details: { chatId: string; content?: string }[] } };
    expect(details.job.details.map((d) => [d.chatId, d.content]).sort()).toEqual([
      ['919800150001@s.whatsapp.net', 'Hello Arjun'],
      ['919800150002@s.whatsapp.net', 'Hello Priya'],
      ['919800150003@s.whatsapp.net', 'Hello friend'],
    ]);
  });

  test('4: a job with some sent and some failed reads Partly sent, amber, 8 of 9, in Jobs, Dashboard and MIS; no Retry for failures a retry cannot fix', async ({
    page,
    request,
  }) => {
    const u = await userWithAccount(page, request, { credits: 20 });
    const { row } = await failedJobRow(
      page,
      request,
      u,
      { chatIds: [...numbers(411, 8), '919800400000'], content: 'Partly there' },
      20_000,
    );
    await expect(row).toBeVisible();
    await shot(page, 4);
    const badge = row.getByText('Partly sent', { exact: true });
    await expect(badge).toBeVisible();
    await expect(row).toContainText('8 of 9');
    // Amber (Mantine's orange tint), not the red of FAILED.
    expect(
      await badge.evaluate((el) => getComputedStyle(el.closest('.mantine-Badge-root')!).backgroundColor),
    ).toBe('rgb(255, 244, 230)');
    await expect(row.getByText('failed', { exact: true })).toHaveCount(0);
    // 'Not on WhatsApp' cannot succeed on a retry: no Retry Failed, and the details say why.
    await expect(row.getByRole('button', { name: 'Retry Failed' })).toHaveCount(0);
    // The Failed tab still lists it (the API's status is the spec's).
    await page.getByRole('tab', { name: /^Failed/ }).click();
    await expect(row).toBeVisible();
    await row.getByRole('button', { name: 'View' }).click();
    const details = page.getByRole('dialog', { name: /^Job Details/ });
    await expect(details).toContainText('Not on WhatsApp (a retry cannot fix this)');
    await expect(details.getByRole('button', { name: 'Retry Failed' })).toHaveCount(0);
    await page.keyboard.press('Escape');

    await page.goto('/#/dashboard');
    await expect(page.getByText('Partly sent', { exact: true }).first()).toBeVisible();

    await page.goto('/#/reports');
    const mis = page.getByRole('table', { name: 'MIS Report jobs' });
    await expect(mis.getByText('Partly sent', { exact: true })).toBeVisible();
    await expect(mis).toContainText('8 of 9');
  });

  test('4: a paused job is not red, and a group send refused by an announce-only group offers no retry', async ({
    page,
    request,
  }) => {
    const u = await userWithAccount(page, request, { credits: 20 });
    const jobId = await sendApi(request, u.headers, u.sessionId, {
      chatIds: numbers(451, 2),
      content: 'Paused one',
      scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const paused = await request.post(`/api/message-jobs-details/${jobId}/pause`, { headers: u.headers });
    expect(paused.ok(), await paused.text()).toBe(true);
    const groups = (await (
      await request.get(`/api/groupsList/${u.sessionId}`, { headers: u.headers })
    ).json()) as {
      groups: { groupId: string; groupName: string }[];
    };
    const announce = groups.groups.find((g) => g.groupName === ANNOUNCE_ONLY)!;
    const res = await request.post(`/api/session/${u.sessionId}/sendBulkMessage`, {
      headers: u.headers,
      data: { chatIds: [announce.groupId], type: 'string', content: 'To the announce group' },
    });
    expect(res.ok(), await res.text()).toBe(true);
    const groupJob = ((await res.json()) as { jobId: string }).jobId;
    await expect
      .poll(async () => (await jobStatus(request, u.headers, groupJob)).status, { timeout: 20_000 })
      .toBe('failed');
    await page.goto('/#/jobs');
    const table = page.getByRole('table', { name: 'Message jobs' });
    const pausedBadge = table
      .getByRole('row')
      .filter({ hasText: jobId.slice(0, 8) })
      .getByText('paused', { exact: true });
    await expect(pausedBadge).toBeVisible();
    const bg = await pausedBadge.evaluate(
      (el) => getComputedStyle(el.closest('.mantine-Badge-root')!).backgroundColor,
    );
    expect(bg).not.toBe('rgb(250, 82, 82)');
    expect(bg).not.toBe('rgb(201, 42, 42)');
    expect(bg).not.toBe('rgb(255, 245, 245)');
    const groupRow = table.getByRole('row').filter({ hasText: groupJob.slice(0, 8) });
    await expect(groupRow.getByText('failed', { exact: true })).toBeVisible();
    await expect(groupRow.getByRole('button', { name: 'Retry Failed' })).toHaveCount(0);
  });
});
