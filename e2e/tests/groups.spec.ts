import type { Page } from '@playwright/test';
import {
  createLinkedAccount,
  createUser,
  expect,
  linkedUserForFile,
  signInByStorage,
  test,
} from '../fixtures.ts';
import {
  FORMULA_NAME,
  type GroupChat,
  groupDate,
  groupsOf,
  MARKUP_NAME,
  signInForGroups,
  TZ,
  table,
} from './support/groups.ts';
import { expectNothingToExport } from './support/print.ts';

test.use({ timezoneId: TZ });

const COLUMNS = [
  '#',
  'Group Name',
  'Admin Numbers',
  'Group Link',
  'Group QR Code',
  'Members Count',
  'Admin Count',
  'Status',
  'Created Date & Time',
  'Updated Date & Time',
];

const en = (n: number) => new Intl.NumberFormat('en-IN').format(n);

const moreAdmins = (g: GroupChat) =>
  `Show ${g.adminPhone.length - 1} more ${g.adminPhone.length === 2 ? 'admin' : 'admins'} of ${g.groupName}`;

const rowOf = (page: Page, name: string) =>
  table(page)
    .getByRole('row')
    .filter({ has: page.getByRole('button', { name, exact: true }) });

/**
 * The row of the group `name`, drawn: the Group List draws only the rows in view (and a few
 * more), so a group further down the list is scrolled to first. Scrolling may undraw rows seen
 * before: ask for them again.
 */
async function shownRow(page: Page, name: string) {
  const row = rowOf(page, name);
  const scroller = page.getByTestId('virtual-table-scroll').first();
  await expect(table(page).getByRole('row').nth(1)).toBeVisible();
  const height = await scroller.evaluate((el) => el.scrollHeight);
  for (let y = 0; (await row.count()) === 0 && y <= height; y += 120) {
    await scroller.evaluate((el, top) => el.scrollTo(0, top), y);
    // Two frames: the virtualizer reads the scroll position, React draws the rows.
    await page.evaluate(
      () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
    );
  }
  await row.scrollIntoViewIfNeeded();
  return row;
}

test.describe('Group List', () => {
  const shared = linkedUserForFile({ credits: 10, phoneNumber: '919811100001' });

  test('shows the ten columns, the link or Not An Admin with a QR image, Active and the dates', async ({
    page,
    request,
  }) => {
    const { groups } = await signInForGroups(shared, page, request);
    expect(groups.length).toBeGreaterThan(4);
    await page.goto('/#/groups');
    await expect(page.getByRole('heading', { name: 'Group List' })).toBeVisible();
    await expect(table(page)).toBeVisible();
    await expect(table(page).getByRole('columnheader')).toHaveText(COLUMNS);
    await expect(page.getByText(`${en(groups.length)} groups`)).toBeVisible();

    const withLink = groups.find((g) => g.groupLink)!;
    const withoutLink = groups.find((g) => !g.groupLink)!;
    expect(withLink && withoutLink).toBeTruthy();

    const linked = await shownRow(page, withLink.groupName);
    const link = linked.getByRole('link', { name: withLink.groupLink! });
    await expect(link).toHaveAttribute('href', withLink.groupLink!);
    await expect(link).toHaveAttribute('target', '_blank');
    const qr = linked.getByRole('img', { name: `QR code of ${withLink.groupName}` });
    await expect(qr).toBeVisible();
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    // Drawn in the browser: no request leaves for a QR service, and the image really renders.
    expect(await qr.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(200);
    await linked.getByRole('button', { name: `Enlarge the QR code of ${withLink.groupName}` }).click();
    const qrDialog = page.getByRole('dialog', { name: withLink.groupName });
    const big = qrDialog.getByRole('img', { name: `QR code of ${withLink.groupName}` });
    await expect(big).toHaveJSProperty('width', 200);
    await expect(qrDialog.getByText(withLink.groupLink!)).toBeVisible();
    await expect(qrDialog.getByRole('link', { name: 'Download QR code' })).toHaveAttribute(
      'download',
      /\.svg$/,
    );
    await qrDialog.getByRole('button', { name: 'Close' }).click();
    await expect(qrDialog).toBeHidden();
    const cells = linked.getByRole('cell');
    await expect(cells.nth(5)).toHaveText(en(withLink.participantCount));
    await expect(cells.nth(6)).toHaveText(en(withLink.adminCount));
    await expect(cells.nth(7)).toHaveText('Active');
    await expect(cells.nth(8)).toHaveText(groupDate(withLink.creationDate));
    await expect(cells.nth(9)).toHaveText(groupDate(withLink.updatedDate));
    expect(groupDate(withLink.creationDate)).toMatch(/^\d{2}-\d{2}-\d{4} \d{2}:\d{2} (AM|PM)$/);

    const unlinked = (await shownRow(page, withoutLink.groupName)).getByRole('cell');
    await expect(unlinked.nth(3)).toHaveText('Not An Admin');
    await expect(rowOf(page, withoutLink.groupName).getByRole('img', { name: /QR code/ })).toHaveCount(0);

    // The tricky names are shown as text, never as markup.
    await expect(await shownRow(page, MARKUP_NAME)).toHaveCount(1);
    await expect(await shownRow(page, FORMULA_NAME)).toHaveCount(1);
    await expect(table(page).locator('b')).toHaveCount(0);
  });

  test('the admin caret expands the other admins and collapses them again, one group at a time', async ({
    page,
    request,
  }) => {
    const { token } = await shared.signIn(page, request);
    const many = (await groupsOf(request, token, shared.sessionId)).filter((g) => g.adminPhone.length > 2);
    expect(many.length).toBeGreaterThanOrEqual(2);
    const [a, b] = many as [GroupChat, GroupChat];
    await page.goto('/#/groups');
    const rowA = await shownRow(page, a.groupName);
    const adminsA = rowA.getByRole('cell').nth(2);
    await expect(adminsA).toContainText(a.adminPhone[0]!);
    await expect(adminsA).not.toContainText(a.adminPhone[1]!);

    const caretA = rowA.getByRole('button', {
      name: moreAdmins(a),
    });
    await caretA.click();
    for (const phone of a.adminPhone) await expect(adminsA).toContainText(phone);
    const hideA = rowA.getByRole('button', { name: `Hide other admins of ${a.groupName}` });
    await expect(hideA).toHaveAttribute('aria-expanded', 'true');

    // Opening another group's admins closes the first (the selection is one group id).
    const rowB = await shownRow(page, b.groupName);
    await rowB.getByRole('button', { name: moreAdmins(b) }).click();
    await expect(rowB.getByRole('cell').nth(2)).toContainText(b.adminPhone.at(-1)!);
    await expect((await shownRow(page, a.groupName)).getByRole('cell').nth(2)).not.toContainText(
      a.adminPhone[1]!,
    );

    // Clicking again collapses.
    await shownRow(page, b.groupName);
    await rowB.getByRole('button', { name: `Hide other admins of ${b.groupName}` }).click();
    await expect(rowB.getByRole('cell').nth(2)).not.toContainText(b.adminPhone[1]!);
    await expect(rowB.getByRole('button', { name: moreAdmins(b) })).toHaveAttribute('aria-expanded', 'false');
  });

  test('search filters by name from 3 characters, case-insensitively, with a hint before', async ({
    page,
    request,
  }) => {
    const { groups } = await signInForGroups(shared, page, request);
    await page.goto('/#/groups');
    const search = page.getByRole('textbox', { name: 'Search groups' });
    await expect(table(page)).toBeVisible();

    await search.fill('Fr');
    await expect(page.getByText('Enter at least 3 characters')).toBeVisible();
    await expect(page.getByText(`${en(groups.length)} groups`)).toBeVisible();

    await search.fill('FRIENDS');
    await expect(page.getByText('Enter at least 3 characters')).toHaveCount(0);
    const expected = groups.filter((g) => g.groupName.toLowerCase().includes('friends'));
    await expect(page.getByText(`${expected.length} of ${en(groups.length)} groups`)).toBeVisible();
    await expect(table(page).getByRole('row')).toHaveCount(expected.length + 1);
    await expect(rowOf(page, MARKUP_NAME)).toHaveCount(1);

    await search.fill('hyperLINK');
    await expect(table(page).getByRole('row')).toHaveCount(2);
    await expect(rowOf(page, FORMULA_NAME)).toHaveCount(1);

    await search.fill('no such group here');
    await expect(page.getByText('No matching groups found')).toBeVisible();
    await expect(table(page)).toHaveCount(0);

    // Nothing shown, nothing to export or print.
    await expectNothingToExport(page);

    await search.fill('');
    await expect(table(page).getByRole('row').first()).toBeVisible();
  });

  test('the detail panel opens from the group name and shows ids, counts, roles and the last message', async ({
    page,
    request,
  }) => {
    const { groups } = await signInForGroups(shared, page, request);
    const owned = groups.find(
      (g) =>
        g.participants.some((p) => p.isSuperAdmin) &&
        g.participants.some((p) => p.isAdmin && !p.isSuperAdmin) &&
        g.lastMessage?.body,
    )!;
    const mediaLast = groups.find((g) => g.lastMessage && !g.lastMessage.body)!;
    expect(owned && mediaLast).toBeTruthy();
    await page.goto('/#/groups');
    // The table renders only the rows in view, and the simulator draws which groups these are (either
    // may be the last of 12): each is found by the search first.
    const search = page.getByRole('textbox', { name: 'Search groups' });

    await search.fill(owned.groupName);
    await table(page).getByRole('button', { name: owned.groupName, exact: true }).click();
    const panel = page.getByRole('dialog', { name: 'Group Details' });
    await expect(panel).toBeVisible();
    await expect(panel.getByRole('heading', { name: owned.groupName })).toBeVisible();
    await expect(panel.getByText('Group ID', { exact: true }).locator('xpath=..')).toContainText(
      owned.groupId,
    );
    await expect(panel.getByText('Created', { exact: true }).locator('xpath=..')).toContainText(
      groupDate(owned.creationDate),
    );
    await expect(panel.getByText('Owner', { exact: true }).locator('xpath=..')).toContainText(
      owned.owner ?? 'N/A',
    );
    await expect(panel.getByText('Total Participants', { exact: true }).locator('xpath=..')).toContainText(
      en(owned.participantCount),
    );
    await expect(panel.getByText('Total Admins', { exact: true }).locator('xpath=..')).toContainText(
      en(owned.adminCount),
    );

    const people = panel.getByRole('table', { name: 'Participants' });
    await expect(people.getByRole('columnheader')).toHaveText(['Phone Number', 'Role']);
    await expect(people.getByRole('row')).toHaveCount(owned.participants.length + 1);
    const roleOf = (p: GroupChat['participants'][number]) =>
      p.isSuperAdmin ? 'Super Admin' : p.isAdmin ? 'Admin' : 'Member';
    for (const p of [
      owned.participants.find((x) => x.isSuperAdmin)!,
      owned.participants.find((x) => x.isAdmin && !x.isSuperAdmin)!,
      owned.participants.find((x) => !x.isAdmin)!,
    ]) {
      await expect(people.getByRole('row').filter({ hasText: p.phoneNumber })).toContainText(roleOf(p));
    }
    const last = owned.lastMessage!;
    await expect(panel.getByText('Sender', { exact: true }).locator('xpath=..')).toContainText(last.sender);
    await expect(panel.getByText('Time', { exact: true }).locator('xpath=..')).toContainText(
      groupDate(new Date(last.timestamp * 1000).toISOString()),
    );
    await expect(panel.getByText(last.body!, { exact: true })).toBeVisible();

    await panel.getByRole('button', { name: 'Close group details' }).click();
    await expect(panel).toBeHidden();

    await search.fill(mediaLast.groupName);
    await table(page).getByRole('button', { name: mediaLast.groupName, exact: true }).click();
    await expect(
      page.getByRole('dialog', { name: 'Group Details' }).getByText('(Media or non-text message)'),
    ).toBeVisible();
  });

  test('a failed fetch shows the server message, or the reason when the server cannot be reached', async ({
    page,
    request,
  }) => {
    await shared.signIn(page, request);
    let fail: 'server' | 'network' = 'server';
    await page.route('**/api/groupChats/**', (route) =>
      fail === 'server'
        ? route.fulfill({ status: 409, json: { message: 'Session is not connected' } })
        : route.abort('internetdisconnected'),
    );
    await page.goto('/#/groups');
    await expect(page.getByText('Session is not connected')).toBeVisible();
    fail = 'network';
    await page.reload();
    await expect(page.getByText(/^Error fetching group chats: /)).toBeVisible();
  });

  test('without a session the page asks to connect WhatsApp first', async ({ page, request }) => {
    const lonely = await createUser(request);
    await signInByStorage(page, request, lonely.username, lonely.password);
    await page.goto('/#/groups');
    await expect(page.getByText('No active session found. Please connect WhatsApp first.')).toBeVisible();
    await expect(page.getByRole('button', { name: 'CSV' })).toHaveCount(0);
  });

  test('in multi-session mode a session selector picks whose groups are listed', async ({
    page,
    request,
  }) => {
    const multi = await createUser(request, { multi: true });
    const first = await createLinkedAccount(request, multi, {
      phoneNumber: '919811100011',
      sessionName: 'First',
    });
    const second = await createLinkedAccount(request, multi, {
      phoneNumber: '919811100022',
      sessionName: 'Second',
    });
    const { token } = await signInByStorage(page, request, multi.username, multi.password);
    const [g1, g2] = [await groupsOf(request, token, first), await groupsOf(request, token, second)];
    const only2 = g2.find((g) => !g1.some((x) => x.groupName === g.groupName))!;
    await page.goto('/#/groups');
    const picker = page.getByRole('combobox', { name: 'Phone number' });
    await expect(picker).toHaveValue('First (919811100011)');
    await expect(table(page)).toBeVisible();
    await expect(rowOf(page, only2.groupName)).toHaveCount(0);
    await picker.click();
    await page.getByRole('option', { name: 'Second (919811100022)' }).click();
    await expect(rowOf(page, only2.groupName)).toHaveCount(1);
  });

  test('5,000 groups: only the rows in view are drawn, and the last one is reached by scrolling', async ({
    page,
    request,
  }) => {
    await shared.signIn(page, request);
    const many: GroupChat[] = Array.from({ length: 5000 }, (_, i) => ({
      groupId: `1203630000${String(i).padStart(6, '0')}@g.us`,
      groupName: `Bulk group ${i + 1}`,
      adminPhone: ['919800000001', '919800000002'],
      groupLink: i % 2 === 0 ? `https://chat.whatsapp.com/Invite${i}` : null,
      participantCount: 10 + (i % 50),
      adminCount: 2,
      creationDate: '2025-03-01T10:00:00.000Z',
      updatedDate: '2025-06-01T15:30:00.000Z',
      owner: '919800000001',
      participants: [],
      lastMessage: null,
    }));
    await page.route('**/api/groupChats/**', (route) =>
      route.fulfill({ json: { success: true, groups: many, message: 'Group chats fetched' } }),
    );
    await page.goto('/#/groups');
    await expect(page.getByText('5,000 groups')).toBeVisible();
    await expect(table(page)).toHaveAttribute('aria-rowcount', '5001');
    const drawn = await table(page).locator('tbody tr[data-index]').count();
    expect(drawn).toBeGreaterThan(3);
    expect(drawn).toBeLessThan(60);

    await page.getByTestId('virtual-table-scroll').evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await expect(rowOf(page, 'Bulk group 5000')).toBeVisible();
    await expect(rowOf(page, 'Bulk group 1')).toHaveCount(0);
    expect(await table(page).locator('tbody tr[data-index]').count()).toBeLessThan(60);

    await page.getByRole('textbox', { name: 'Search groups' }).fill('group 4321');
    await expect(table(page).getByRole('row')).toHaveCount(2);
    await expect(rowOf(page, 'Bulk group 4321')).toBeVisible();
  });
});
