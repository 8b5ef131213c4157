import { ADMIN, createUser, expect, signInAsAdmin, test } from '../fixtures.ts';

/**
 * An admin sets the credits per recipient of each kind of account on the admin
 * dashboard's Settings tab. Only the Cloud API price is changed (and put back): the specs running
 * beside this one send through linked phones at 1 credit each, and none asserts a Cloud balance.
 */
test('an ADMIN sets the credits per recipient of a Cloud API account; a USER may not', async ({
  page,
  request,
}) => {
  const login = await request.post('/api/auth/login', { data: ADMIN });
  const adminHeaders = { authorization: `Bearer ${((await login.json()) as { token: string }).token}` };
  try {
    await signInAsAdmin(page, request);
    await page.goto('/#/adminDashboard');
    await page.getByRole('tab', { name: 'Settings' }).click();
    const linked = page.getByRole('textbox', { name: 'Linked phone (credits per recipient)' });
    const cloud = page.getByRole('textbox', { name: 'Cloud API account (credits per recipient)' });
    await expect(linked).toHaveValue('1');
    await expect(cloud).toHaveValue('1');
    await cloud.fill('3');
    await page.getByRole('button', { name: 'Save prices' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Saved:' })).toContainText(
      'Saved: 1 per recipient through a linked phone, 3 through a Cloud API account',
    );
    // Stored on the server: read again after a reload, and what the compose pages read.
    await page.reload();
    await page.getByRole('tab', { name: 'Settings' }).click();
    await expect(cloud).toHaveValue('3');
    await expect(linked).toHaveValue('1');
    const read = await request.get('/api/credit-prices', { headers: adminHeaders });
    expect(await read.json()).toEqual({ success: true, prices: { linked: 1, cloud: 3 } });

    const user = await createUser(request, { credits: 5 });
    const userLogin = await request.post('/api/auth/login', {
      data: { username: user.username, password: user.password },
    });
    const userToken = ((await userLogin.json()) as { token: string }).token;
    const refused = await request.put('/api/admin/credit-prices', {
      headers: { authorization: `Bearer ${userToken}` },
      data: { cloud: 1 },
    });
    expect(refused.status()).toBe(403);
  } finally {
    await request.put('/api/admin/credit-prices', { headers: adminHeaders, data: { linked: 1, cloud: 1 } });
  }
});
