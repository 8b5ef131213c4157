import { createLinkedAccount, createUser, expect, signInByStorage, test } from '../fixtures.ts';

test("Bulk Messaging 'Also send from': the numbers are split between the two accounts", async ({
  page,
  request,
}) => {
  const user = await createUser(request, { credits: 10, bulk: true, multi: true });
  const first = await createLinkedAccount(request, user, {
    phoneNumber: '919800007001',
    sessionName: 'Shop',
  });
  const second = await createLinkedAccount(request, user, {
    phoneNumber: '919800007002',
    sessionName: 'Office',
  });
  const { token } = await signInByStorage(page, request, user.username, user.password);
  const headers = { authorization: `Bearer ${token}` };
  await page.goto('/#/bulkmessage');
  await expect(page.getByRole('heading', { name: 'Send Bulk Message' })).toBeVisible();

  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Upload CSV' }).click();
  await (await chooser).setFiles({
    name: 'four.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('919800017001\n919800017002\n919800017003\n919800017004\n'),
  });
  const table = page.getByRole('table', { name: 'Select Phone Numbers' });
  await table.getByRole('checkbox', { name: 'Select All' }).check();
  await expect(page.getByText('4 of 4 selected')).toBeVisible();

  // The picked account (the first) is not offered; the other connected one is.
  await page.getByRole('combobox', { name: 'Also send from' }).click();
  await expect(page.getByRole('option')).toHaveText(['Office (919800007002)']);
  await page.getByRole('option', { name: 'Office (919800007002)' }).click();
  await page.keyboard.press('Escape');

  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('From two phones');
  await page.getByRole('button', { name: 'Send Now' }).click();
  await expect(page.getByRole('status', { name: 'Status' })).toHaveText(/Message sending Initiated/);

  const jobs = await (await request.get(`/api/message-jobs/${user.id}`, { headers })).json();
  const jobId = jobs.jobs[0].id as string;
  expect(jobs.jobs[0].sessionIds).toEqual([first, second]);
  await expect
    .poll(async () => {
      const res = await request.get(`/api/message-jobs-details/${jobId}?media=0`, { headers });
      const job = (await res.json()).job as { status: string; details: Array<{ sessionId: string }> };
      return job.status === 'completed' ? job.details.map((d) => d.sessionId) : null;
    })
    .toEqual([first, second, first, second]);
});
