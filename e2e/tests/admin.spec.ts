import type { Page } from '@playwright/test';
import {
  ADMIN,
  expect,
  linkedUser,
  signInAsAdmin,
  signInByStorage,
  type TestUser,
  test,
} from '../fixtures.ts';
import { finishedJobs, sendIndividual } from './support/jobs.ts';

const report = (page: Page) => page.getByRole('table', { name: 'MIS Report jobs' });

/** The full job ids of the rows shown (every row is drawn: the lists here are short). */
const shownJobIds = (page: Page) =>
  report(page)
    .locator('tbody tr[data-index] td:first-child [data-job-id]')
    .evaluateAll((els) => els.map((el) => el.getAttribute('data-job-id') ?? ''))
    .then((ids) => ids.sort());

test.describe('Admin page', () => {
  let alice: TestUser;
  let bob: TestUser;
  let aliceJobs: string[];
  let bobJobs: string[];

  test.beforeAll(async ({ request }) => {
    const a = await linkedUser(request, { credits: 10, name: 'Alice', phoneNumber: '919844400001' });
    const b = await linkedUser(request, { credits: 10, name: 'Bob', phoneNumber: '919844400002' });
    [alice, bob] = [a.user, b.user];
    const [aliceAccount, bobAccount, aliceToken, bobToken] = [a.sessionId, b.sessionId, a.token, b.token];
    await sendIndividual(request, aliceToken, aliceAccount, { content: 'Alice first message' });
    await sendIndividual(request, aliceToken, aliceAccount, { content: 'Alice second message' });
    await sendIndividual(request, bobToken, bobAccount, { content: 'Bob only message' });
    aliceJobs = (await finishedJobs(request, aliceToken, alice.id)).map((j) => j.id).sort();
    bobJobs = (await finishedJobs(request, bobToken, bob.id)).map((j) => j.id).sort();
    expect(aliceJobs).toHaveLength(2);
    expect(bobJobs).toHaveLength(1);
  });

  test('an ADMIN picks a user and sees exactly that user’s jobs', async ({ page, request }) => {
    await signInAsAdmin(page, request);
    await page.goto('/#/adminDashboard');
    await expect(page.getByRole('heading', { name: 'Admin User' })).toBeVisible();
    await expect(page.getByText('Select an user from below to see the jobs')).toBeVisible();
    await expect(page.getByRole('heading', { name: 'MIS Report' })).toHaveCount(0);
    // The overview above the picker replaces its loader when it arrives and moves the picker
    // down: a click during that move can miss, as a person's would. Pick once it has settled.
    await expect(page.getByRole('table', { name: 'Users overview' })).toContainText(alice.username);

    const picker = page.getByRole('combobox', { name: 'User' });
    await picker.click();
    // Name and username (the username alone was shown).
    await page.getByRole('option', { name: `Alice (${alice.username})`, exact: true }).click();
    await expect(page.getByRole('heading', { name: 'MIS Report' })).toBeVisible();
    await expect(page.getByText('2 jobs')).toBeVisible();
    expect(await shownJobIds(page)).toEqual(aliceJobs);
    await expect(report(page)).toContainText('919844400001');
    await expect(report(page)).not.toContainText('919844400002');

    await picker.click();
    await page.getByRole('option', { name: `Bob (${bob.username})`, exact: true }).click();
    await expect(page.getByText('1 job', { exact: true })).toBeVisible();
    expect(await shownJobIds(page)).toEqual(bobJobs);
    await expect(report(page)).toContainText('Bob only messag...');
    await expect(report(page)).not.toContainText('Alice');
  });

  test('a USER cannot open the Admin page, nor read another user’s jobs', async ({ page, request }) => {
    const { token } = await signInByStorage(page, request, alice.username, alice.password);
    await page.goto('/#/adminDashboard');
    await expect(page).toHaveURL(/#\/dashboard$/);
    await expect(page.getByRole('heading', { name: 'Admin User' })).toHaveCount(0);
    await expect(page.getByText('Select an user from below to see the jobs')).toHaveCount(0);

    const res = await request.get(`/api/message-jobs/${bob.id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.ok()).toBe(false);
    expect([403, 404]).toContain(res.status());
  });
});
