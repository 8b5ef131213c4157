import type { APIRequestContext, Page } from '@playwright/test';
import { expect } from '../../fixtures.ts';
import { userWithAccount } from '../messaging-helpers.ts';

export const uploadResult = (page: Page) => page.getByRole('status', { name: 'Upload result' });
export const contactsTable = (page: Page) => page.getByRole('table', { name: 'Select Phone Numbers' });

/** Picks a file with the bulk page's 'Upload CSV or Excel' button. */
export async function uploadList(page: Page, name: string, content: string | Buffer) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Upload CSV' }).click();
  await (await chooser).setFiles({
    name,
    mimeType: 'text/csv',
    buffer: typeof content === 'string' ? Buffer.from(content, 'utf8') : content,
  });
}

/** A user with a linked account and `credits`, on an empty Bulk Messaging page. */
export async function onEmptyBulkPage(page: Page, request: APIRequestContext, credits: number) {
  const u = await userWithAccount(page, request, { credits });
  await page.goto('/#/bulkmessage');
  await expect(page.getByText('No contacts uploaded')).toBeVisible();
  return u;
}
