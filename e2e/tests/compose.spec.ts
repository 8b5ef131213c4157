import { createLinkedAccount, createUser, expect, signInByStorage, test } from '../fixtures.ts';
import {
  ANNOUNCE_ONLY,
  balanceBubble,
  groupNames,
  localInputValue,
  onGroupMessaging,
  userWithAccount,
} from './messaging-helpers.ts';
import { PNG_1X1 } from './support/jobs.ts';

const banner = (page: import('@playwright/test').Page) => page.getByRole('status', { name: 'Status' });
const groupsTable = (page: import('@playwright/test').Page) =>
  page.getByRole('table', { name: 'Select Groups' });
/** A problem with the message, shown beside its control, not in the banner. */
const problem = (page: import('@playwright/test').Page, text: string) =>
  page.getByText(text, { exact: true });

test('validation messages come in the spec order, the schedule modal gives its two', async ({
  page,
  request,
}) => {
  const [first] = (await onGroupMessaging(page, request, { credits: 20 })).groups;
  await expect(page.getByRole('heading', { name: 'Send Group Message' })).toBeVisible();
  await expect(page.getByText('0 of 12 selected')).toBeVisible();

  // 1. Nothing selected: both buttons are disabled (the 'Please select at least one group' check).
  await expect(page.getByRole('button', { name: 'Send Now' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Schedule Message' })).toBeDisabled();

  await groupsTable(page)
    .getByRole('checkbox', { name: `Select ${first}`, exact: true })
    .check();
  await expect(page.getByText('1 of 12 selected')).toBeVisible();

  // 2. Text: a message is required (blank counts as empty).
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('   ');
  await page.getByRole('button', { name: 'Send Now' }).click();
  await expect(problem(page, 'Please enter a message')).toBeInViewport();
  await expect(page.getByRole('textbox', { name: 'Message', exact: true })).toBeFocused();
  await expect(banner(page)).toHaveCount(0);

  // 3. Media: a file is required.
  await page.getByRole('tab', { name: 'Media Message' }).click();
  await expect(page.getByText('No file selected')).toBeVisible();
  await page.getByRole('button', { name: 'Send Now' }).click();
  await expect(problem(page, 'Please select a file to send')).toBeInViewport();
  await expect(page.getByRole('button', { name: 'Select File' })).toBeFocused();

  // 4. Poll: a question, then two non-blank options; the schedule button runs the same checks.
  await page.getByRole('tab', { name: 'Poll' }).click();
  await page.getByRole('button', { name: 'Schedule Message' }).click();
  await expect(problem(page, 'Please enter a poll question')).toBeInViewport();
  await expect(page.getByLabel('Poll question')).toBeFocused();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await page.getByLabel('Poll question').fill('Lunch at one?');
  await page.getByRole('textbox', { name: 'Option 1', exact: true }).fill('Yes');
  await page.getByRole('textbox', { name: 'Option 2' }).fill('  ');
  await page.getByRole('button', { name: 'Send Now' }).click();
  await expect(problem(page, 'Please add at least two poll options')).toBeInViewport();
  await expect(page.getByRole('textbox', { name: 'Option 1', exact: true })).toBeFocused();
  await page.getByRole('button', { name: 'Schedule Message' }).click();
  await expect(problem(page, 'Please add at least two poll options')).toBeVisible();
  await expect(page.getByRole('dialog')).toHaveCount(0);

  // 5. Scheduling: a time, then one strictly in the future, both inside the modal.
  await page.getByRole('textbox', { name: 'Option 2' }).fill('No');
  await page.getByRole('button', { name: 'Schedule Message' }).click();
  const dialog = page.getByRole('dialog', { name: 'Schedule Message' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByText('Lunch at one?')).toBeVisible();
  await dialog.getByRole('button', { name: 'Schedule Message' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('Please select a schedule time');
  const input = dialog.getByLabel('Schedule time');
  // Typed the en-IN way, day first; an ISO value is read too.
  await expect(input).toHaveAttribute('placeholder', 'DD/MM/YYYY, hh:mm am');
  await input.fill(localInputValue(new Date(Date.now() - 60 * 60_000)));
  await dialog.getByRole('button', { name: 'Schedule Message' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('Please select a valid future date and time');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
});

test('changing the message type clears the form and the message', async ({ page, request }) => {
  const [first] = (await onGroupMessaging(page, request, { credits: 20 })).groups;
  await groupsTable(page)
    .getByRole('checkbox', { name: `Select ${first}`, exact: true })
    .check();

  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Hello there');
  await page.getByRole('tab', { name: 'Media Message' }).click();
  await page.getByRole('button', { name: 'Send Now' }).click();
  await expect(problem(page, 'Please select a file to send')).toBeVisible();

  const tooBig = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Select File' }).click();
  await (await tooBig).setFiles({
    name: 'video.mp4',
    mimeType: 'video/mp4',
    buffer: Buffer.alloc(16 * 1024 * 1024 + 1),
  });
  await expect(problem(page, 'File is too large (max 16 MB)')).toBeInViewport();
  await expect(page.getByText('No file selected')).toBeVisible();

  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Select File' }).click();
  await (await chooser).setFiles({
    name: 'notes.pdf',
    mimeType: 'application/pdf',
    buffer: Buffer.alloc(2048, 1),
  });
  await expect(page.getByText('2.00 KB')).toBeVisible();
  await page.getByLabel('Caption (optional)').fill('A caption');

  await page.getByRole('tab', { name: 'Poll' }).click();
  await expect(banner(page)).toHaveCount(0);
  await page.getByLabel('Poll question').fill('Question?');
  await page.getByRole('button', { name: 'Add Option' }).click();
  await page.getByRole('textbox', { name: 'Option 3' }).fill('Three');

  await page.getByRole('tab', { name: 'Media Message' }).click();
  await expect(page.getByText('No file selected')).toBeVisible();
  await expect(page.getByText('notes.pdf')).toHaveCount(0);
  await expect(page.getByLabel('Caption (optional)')).toHaveValue('');

  await page.getByRole('tab', { name: 'Poll' }).click();
  await expect(page.getByLabel('Poll question')).toHaveValue('');
  await expect(page.getByRole('textbox', { name: /^Option \d$/ })).toHaveCount(2);

  await page.getByRole('tab', { name: 'Text Message' }).click();
  await expect(page.getByRole('textbox', { name: 'Message', exact: true })).toHaveValue('');
  await expect(page.getByRole('textbox', { name: 'Message', exact: true })).toHaveAttribute('rows', '6');
});

test('poll options start at two, grow to 12 and are removable only above two; duplicates are refused', async ({
  page,
  request,
}) => {
  const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 5 });
  const [first] = await groupNames(request, headers, accountId);
  await page.goto('/#/compose');
  await page.getByRole('tab', { name: 'Poll' }).click();
  const options = page.getByRole('textbox', { name: /^Option \d+$/ });
  await expect(options).toHaveCount(2);
  await expect(page.getByRole('textbox', { name: 'Option 1' })).toHaveAttribute('placeholder', 'Option 1');
  await expect(page.getByRole('button', { name: /^Remove option/ })).toHaveCount(0);

  for (let i = 0; i < 4; i++) await page.getByRole('button', { name: 'Add Option' }).click();
  await expect(options).toHaveCount(6);
  await expect(page.getByRole('button', { name: /^Remove option/ })).toHaveCount(6);

  await page.getByRole('textbox', { name: 'Option 2' }).fill('second');
  await page.getByRole('button', { name: 'Remove option 1' }).click();
  await expect(options).toHaveCount(5);
  await expect(page.getByRole('textbox', { name: 'Option 1' })).toHaveValue('second');
  for (let i = 0; i < 3; i++) await page.getByRole('button', { name: 'Remove option 1' }).click();
  await expect(options).toHaveCount(2);
  await expect(page.getByRole('button', { name: /^Remove option/ })).toHaveCount(0);

  // WhatsApp takes at most 12 options (docs/decisions.md, Polls): 'Add Option' is disabled there.
  const add = page.getByRole('button', { name: 'Add Option' });
  for (let i = 0; i < 10; i++) await add.click();
  await expect(options).toHaveCount(12);
  await expect(add).toBeDisabled();
  await page.getByRole('button', { name: 'Remove option 12' }).click();
  await expect(add).toBeEnabled();

  // Options equal once trimmed, in any case, are refused before anything is sent.
  await page.getByLabel('Poll question').fill('Lunch?');
  await page.getByRole('textbox', { name: 'Option 1', exact: true }).fill('Yes');
  await page.getByRole('textbox', { name: 'Option 2', exact: true }).fill('  YES ');
  await groupsTable(page)
    .getByRole('checkbox', { name: `Select ${first}`, exact: true })
    .check();
  await page.getByRole('button', { name: 'Send Now' }).click();
  await expect(problem(page, 'Poll options must be different')).toBeInViewport();
  await expect(balanceBubble(page)).toHaveText('Balance: 5');
});

test('Select All and the credit limit with a balance smaller than the groups list', async ({
  page,
  request,
}) => {
  const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 3 });
  const names = await groupNames(request, headers, accountId);
  await page.goto('/#/compose');
  await expect(balanceBubble(page)).toHaveText('Balance: 3');
  const table = groupsTable(page);
  await expect(page.getByText('0 of 12 selected')).toBeVisible();
  await expect(table.getByRole('checkbox', { name: 'Select All' })).toBeDisabled();
  await expect(
    page.getByText('Your groups count is greater than credit limit. So Select All is disabled', {
      exact: true,
    }),
  ).toBeVisible();

  for (const name of names.slice(0, 3)) {
    await table.getByRole('checkbox', { name: `Select ${name}`, exact: true }).check();
  }
  await expect(page.getByText('3 of 12 selected')).toBeVisible();
  await expect(page.getByText('You have reached the credit limit', { exact: true })).toBeVisible();
  for (const name of names.slice(3)) {
    await expect(table.getByRole('checkbox', { name: `Select ${name}`, exact: true })).toBeDisabled();
  }
  await expect(table.getByRole('checkbox', { name: `Select ${names[0]}`, exact: true })).toBeEnabled();

  await table.getByRole('checkbox', { name: `Select ${names[0]}`, exact: true }).uncheck();
  await expect(page.getByText('2 of 12 selected')).toBeVisible();
  await expect(page.getByText('You have reached the credit limit', { exact: true })).toHaveCount(0);
  await expect(table.getByRole('checkbox', { name: `Select ${names[5]}`, exact: true })).toBeEnabled();
});

test('Select All selects every group, unticking clears only a full selection', async ({ page, request }) => {
  const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 12 });
  const names = await groupNames(request, headers, accountId);
  await page.goto('/#/compose');
  const table = groupsTable(page);
  const all = table.getByRole('checkbox', { name: 'Select All' });
  await expect(all).toBeEnabled();
  await expect(
    page.getByText('Your groups count is greater than credit limit. So Select All is disabled'),
  ).toHaveCount(0);

  await all.check();
  await expect(page.getByText('12 of 12 selected')).toBeVisible();
  // Balance 12 and 12 selected: the limit is reached, and every row is still selected.
  await expect(page.getByText('You have reached the credit limit', { exact: true })).toBeVisible();
  await all.uncheck();
  await expect(page.getByText('0 of 12 selected')).toBeVisible();

  // Ticking every row by hand ticks Select All.
  for (const name of names)
    await table.getByRole('checkbox', { name: `Select ${name}`, exact: true }).check();
  await expect(all).toBeChecked();
  // With part of the list selected, ticking Select All selects everything.
  await table.getByRole('checkbox', { name: `Select ${names[0]}`, exact: true }).uncheck();
  await expect(all).not.toBeChecked();
  await all.click();
  await expect(page.getByText('12 of 12 selected')).toBeVisible();
});

test('a text, an image and a poll reach the success message and the balance drops by the count', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const names = (await onGroupMessaging(page, request, { credits: 20 })).groups;
  await expect(balanceBubble(page)).toHaveText('Balance: 20');
  const table = groupsTable(page);
  const pick = async (list: string[]) => {
    for (const n of list) await table.getByRole('checkbox', { name: `Select ${n}`, exact: true }).check();
  };

  // Text to three groups.
  await pick(names.slice(0, 3));
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Shop opens at 10 tomorrow');
  await page.getByRole('button', { name: 'Send Now' }).click();
  // The panel shows until the first poll, 2 s after the job is accepted.
  const progress = page.getByRole('region', { name: 'Sending Progress' });
  await expect(progress).toBeVisible();
  await expect(progress).toContainText('of 3 (');
  await expect(progress).toContainText('Successful:');
  await expect(progress).toContainText('Elapsed:');
  await expect(page.getByRole('button', { name: 'Sending...' })).toBeDisabled();
  await expect(banner(page)).toContainText('Message sending complete! Successfully sent to 3 groups.');
  await expect(balanceBubble(page)).toHaveText('Balance: 17');
  await expect(page.getByText('0 of 12 selected')).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Message', exact: true })).toHaveValue('');
  await expect(page.getByRole('region', { name: 'Sending Progress' })).toHaveCount(0);
  await expect(banner(page).getByRole('button', { name: 'View All Jobs' })).toBeVisible();

  // An image with its preview to two groups.
  await pick(names.slice(3, 5));
  await page.getByRole('tab', { name: 'Media Message' }).click();
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Select File' }).click();
  await (await chooser).setFiles({ name: 'offer.png', mimeType: 'image/png', buffer: PNG_1X1 });
  await expect(page.getByRole('img', { name: 'Preview of offer.png' })).toBeVisible();
  await page.getByLabel('Caption (optional)').fill('Weekend offer');
  await page.getByRole('button', { name: 'Send Now' }).click();
  await expect(banner(page)).toContainText('Message sending complete! Successfully sent to 2 groups.');
  await expect(balanceBubble(page)).toHaveText('Balance: 15');
  await expect(page.getByText('No file selected')).toBeVisible();

  // A poll to four groups.
  await pick(names.slice(5, 9));
  await page.getByRole('tab', { name: 'Poll' }).click();
  await page.getByLabel('Poll question').fill('Which day suits you?');
  await page.getByRole('textbox', { name: 'Option 1' }).fill('Saturday');
  await page.getByRole('textbox', { name: 'Option 2' }).fill('Sunday');
  await page.getByRole('checkbox', { name: 'Allow multiple answers' }).check();
  await page.getByRole('button', { name: 'Send Now' }).click();
  await expect(banner(page)).toContainText('Message sending complete! Successfully sent to 4 groups.');
  await expect(balanceBubble(page)).toHaveText('Balance: 11');

  await banner(page).getByRole('button', { name: 'View All Jobs' }).click();
  await expect(page).toHaveURL(/#\/jobs$/);
});

test('a send that fails for a group gives the failure text with the retry hint', async ({
  page,
  request,
}) => {
  const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 5 });
  const names = await groupNames(request, headers, accountId);
  const ok = names.find((n) => n !== ANNOUNCE_ONLY)!;
  await page.goto('/#/compose');
  const table = groupsTable(page);
  await table.getByRole('checkbox', { name: `Select ${ok}`, exact: true }).check();
  await table.getByRole('checkbox', { name: `Select ${ANNOUNCE_ONLY}`, exact: true }).check();
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Hello all');
  await page.getByRole('button', { name: 'Send Now' }).click();
  await expect(banner(page)).toContainText(
    'Message sending failed. Successfully sent to 1 groups. Failed for 1 groups. You can retry failed messages from the Jobs page.',
  );
  // The counts beside the spec's words.
  await expect(banner(page)).toContainText('1 sent, 1 failed — Retry Failed in Message Jobs');
  // One credit spent, the failed one refunded.
  await expect(balanceBubble(page)).toHaveText('Balance: 4');
});

test('multi-session users pick the session; its groups load and the selection starts again', async ({
  page,
  request,
}) => {
  const user = await createUser(request, { credits: 10, multi: true });
  const first = await createLinkedAccount(request, user, {
    phoneNumber: '919800000101',
    sessionName: 'Shop',
  });
  const second = await createLinkedAccount(request, user, {
    phoneNumber: '919800000102',
    sessionName: 'Home',
  });
  const { token } = await signInByStorage(page, request, user.username, user.password);
  const headers = { authorization: `Bearer ${token}` };
  const firstNames = await groupNames(request, headers, first);
  const secondNames = await groupNames(request, headers, second);
  await page.goto('/#/compose');
  const picker = page.getByRole('combobox', { name: 'Phone number' });
  await expect(picker).toHaveValue('Shop (919800000101)');
  const table = groupsTable(page);
  await table.getByRole('checkbox', { name: `Select ${firstNames[0]}`, exact: true }).check();
  await expect(page.getByText('1 of 12 selected')).toBeVisible();

  await picker.click();
  await page.getByRole('option', { name: 'Home (919800000102)' }).click();
  await expect(page.getByText('0 of 12 selected')).toBeVisible();
  const only = secondNames.find((n) => !firstNames.includes(n))!;
  await expect(table.getByRole('checkbox', { name: `Select ${only}`, exact: true })).toBeVisible();
});

test('single-session users see no session picker', async ({ page, request }) => {
  await userWithAccount(page, request, { credits: 1 });
  await page.goto('/#/compose');
  await expect(page.getByText('0 of 12 selected')).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'Phone number' })).toHaveCount(0);
});
