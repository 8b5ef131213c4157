import { createUser, expect, loginViaUi, test } from '../fixtures.ts';

// A user changes their own password from the avatar menu; the API ends every
// other sign-in and key, and this browser goes on with the new token it answers.
test.describe('Own password change', () => {
  for (const size of [
    { width: 1280, height: 800 },
    { width: 360, height: 740 },
  ]) {
    test(`from the avatar menu at ${size.width} px: a mismatch is said, a wrong password refused, then changed`, async ({
      page,
      request,
    }) => {
      await page.setViewportSize(size);
      const user = await createUser(request, { credits: 0, name: 'Pass Word' });
      await loginViaUi(page, user.username, user.password);
      // Another sign-in (a phone, say): it ends with the change.
      const other = await request.post('/api/auth/login', {
        data: { username: user.username, password: user.password },
      });
      const otherToken = (await other.json()).token as string;

      await page.getByRole('button', { name: /Account menu/ }).click();
      await page.getByRole('menuitem', { name: 'Change password' }).click();
      await expect(page.getByRole('heading', { name: 'Change password', level: 1 })).toBeVisible();
      const form = page.getByRole('form', { name: 'Change password' });

      await form.getByLabel('Current password').fill(user.password);
      await form.getByLabel(/^New password(?! again)/).fill('a-new-password-1');
      await form.getByLabel('New password again').fill('a-new-password-2');
      await form.getByRole('button', { name: 'Change password' }).click();
      await expect(form.getByText('The new passwords do not match')).toBeVisible();

      await form.getByLabel('Current password').fill('not-my-password');
      await form.getByLabel('New password again').fill('a-new-password-1');
      await form.getByRole('button', { name: 'Change password' }).click();
      await expect(page.getByRole('alert').filter({ hasText: 'Password is incorrect' })).toBeVisible();
      expect(
        (
          await request.post('/api/auth/login', {
            data: { username: user.username, password: 'a-new-password-1' },
          })
        ).status(),
      ).toBe(401);

      await form.getByLabel('Current password').fill(user.password);
      await form.getByRole('button', { name: 'Change password' }).click();
      await expect(page.getByRole('status').filter({ hasText: 'Password changed.' })).toContainText(
        'Every other sign-in and every API key has ended',
      );

      // The old password and the other sign-in no longer work; the new password does.
      expect(
        (
          await request.post('/api/auth/login', {
            data: { username: user.username, password: user.password },
          })
        ).status(),
      ).toBe(401);
      expect(
        (
          await request.get('/api/userDetails', { headers: { authorization: `Bearer ${otherToken}` } })
        ).status(),
      ).toBe(401);
      expect(
        (
          await request.post('/api/auth/login', {
            data: { username: user.username, password: 'a-new-password-1' },
          })
        ).status(),
      ).toBe(200);
      // This browser stays signed in with the token the change answered.
      await page.goto('/#/dashboard');
      await expect(page.getByRole('heading', { name: 'Dashboard', exact: true })).toBeVisible();
      await expect(page).not.toHaveURL(/#\/login/);
    });
  }
});
