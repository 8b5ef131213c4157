import { expect, test } from '../fixtures.ts';
import { userWithAccount } from './messaging-helpers.ts';
import { seriousViolations } from './support/axe.ts';
import { importContactList } from './support/contacts.ts';

// The Dashboard's "Add New Group" makes a WhatsApp group through the linked phone: the first 5
// numbers are added, the others are told to join by the invite link (a mass add is a ban signal).
for (const size of [
  { width: 1280, height: 800, fromList: false },
  { width: 360, height: 740, fromList: true },
]) {
  test(`Add New Group at ${size.width} px, members ${size.fromList ? 'from a contact list' : 'typed'}: five added, the rest by the invite link`, async ({
    page,
    request,
  }) => {
    await page.setViewportSize({ width: size.width, height: size.height });
    const { token, sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 5 });
    // Seven numbers; one is not on WhatsApp (the simulator's numbers ending 0000).
    const numbers = [
      '919822230001',
      '919822230002',
      '919822230003',
      '919822230000',
      '919822230005',
      '919822230006',
      '919822230007',
    ];
    if (size.fromList)
      await importContactList(
        request,
        token,
        'Helpers',
        `phone,name\n${numbers.map((n, i) => `${n},Helper ${i + 1}`).join('\n')}\n`,
      );
    await page.goto('/#/dashboard');
    await page.getByRole('link', { name: /^Add New Group/ }).click();
    await expect(page).toHaveURL(/#\/groups\/new$/);
    await expect(page.getByRole('heading', { name: 'Add New Group' })).toBeVisible();

    const name = `Helpers ${size.width}`;
    await page.getByLabel('Group name').fill(name);
    if (size.fromList) {
      await page.getByRole('combobox', { name: 'Members from a contact list' }).click();
      await page.getByRole('option', { name: 'Helpers (7)' }).click();
      await expect(page.getByLabel("Members' phone numbers (one a line)")).toHaveValue(numbers.join('\n'));
    } else {
      await page.getByLabel("Members' phone numbers (one a line)").fill(numbers.join('\n'));
    }
    await expect(page.getByRole('status').filter({ hasText: 'added now' })).toHaveText(
      '5 numbers added now, 2 numbers by the invite link',
    );
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Create group' }).click();

    const result = page.getByRole('status').filter({ hasText: `Group created: ${name}` });
    await expect(result).toBeVisible();
    await expect(result).toContainText(
      '4 members added: 919822230001, 919822230002, 919822230003, 919822230005.',
    );
    await expect(result).toContainText(
      'Not added (not on WhatsApp, or they allow only their contacts to add them): 919822230000.',
    );
    await expect(result).toContainText(
      '2 numbers were not added, to keep the account safe: send them the invite link.',
    );
    await expect(result.getByText(/^https:\/\/chat\.whatsapp\.com\//)).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);

    // The group is the account's at once: listed with its members, the account its admin.
    const list = (await (await request.get(`/api/groupsList/${accountId}`, { headers })).json()) as {
      groups: { groupName: string; participantCount: number }[];
    };
    expect(list.groups.find((g) => g.groupName === name)?.participantCount).toBe(5);
    await result.getByRole('link', { name: 'Open Group List' }).click();
    await expect(page).toHaveURL(/#\/groups$/);
    await page
      .getByLabel(/Search/)
      .first()
      .fill(name);
    await expect(page.getByText(name).first()).toBeVisible();
  });
}

test('Add New Group refuses a group without a name or members, and sends nothing', async ({
  page,
  request,
}) => {
  const { sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 5 });
  const before = (
    (await (await request.get(`/api/groupsList/${accountId}`, { headers })).json()) as { groups: unknown[] }
  ).groups.length;
  await page.goto('/#/groups/new');
  await page.getByRole('button', { name: 'Create group' }).click();
  await expect(page.getByRole('alert')).toHaveText('Group name is required');
  await page.getByLabel('Group name').fill('Nobody');
  await page.getByRole('button', { name: 'Create group' }).click();
  await expect(page.getByRole('alert')).toHaveText('Give at least one member: a number, or a contact list');
  await page.getByLabel("Members' phone numbers (one a line)").fill('12ab');
  await page.getByRole('button', { name: 'Create group' }).click();
  await expect(page.getByRole('alert')).toHaveText('Invalid phone number: 12ab');
  const after = (
    (await (await request.get(`/api/groupsList/${accountId}`, { headers })).json()) as { groups: unknown[] }
  ).groups.length;
  expect(after).toBe(before);
});
