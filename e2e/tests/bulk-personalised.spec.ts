import type { APIRequestContext, Page } from '@playwright/test';
import { expect, test } from '../fixtures.ts';
import { balanceBubble, ledger, userWithAccount } from './messaging-helpers.ts';

async function uploadCsv(page: Page, name: string, content: string) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Upload CSV' }).click();
  await (await chooser).setFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(content, 'utf8') });
}

async function outbox(request: APIRequestContext, headers: Record<string, string>, accountId: string) {
  const res = await request.get(`/api/simulator/sessions/${accountId}/outbox`, { headers });
  expect(res.ok()).toBe(true);
  return ((await res.json()) as { messages: { chatId: string; text: string | null }[] }).messages;
}

test('a personalised send to a contact list and a CSV with headers: preview, unknown field, each person’s text, an opted-out number skipped and not charged', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const { user, sessionId: accountId, headers } = await userWithAccount(page, request, { credits: 10 });
  // A saved list (name, mobile, city) and one of its numbers on the opt-out list.
  const imported = await request.post('/api/contact-lists/import', {
    headers,
    multipart: {
      name: 'Diwali VIPs',
      file: {
        name: 'vips.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(
          'Name,Mobile,City\nAsha,98000 00051,Pune\nRavi,+91 98000 00052,Mumbai\nMeena,9800000053,\n',
        ),
      },
    },
  });
  expect(imported.ok()).toBe(true);
  expect(((await imported.json()) as { imported: number }).imported).toBe(3);
  const opted = await request.post('/api/opt-outs', { headers, data: { phoneNumbers: ['9800000052'] } });
  expect(opted.ok()).toBe(true);

  await page.goto('/#/bulkmessage');
  await expect(balanceBubble(page)).toHaveText('Balance: 10');
  // A CSV with headers: its columns are fields too.
  await uploadCsv(page, 'walkins.csv', 'phone,name,city\n9800000061,Kiran,Nagpur\n9800000062,,Delhi\n');
  await expect(page.getByRole('status', { name: 'Upload result' })).toHaveText(
    'walkins.csv: 2 phone numbers loaded. Skipped 1 line: 1 without a number (header or text).',
  );
  const table = page.getByRole('table', { name: 'Select Phone Numbers' });
  await table.getByRole('checkbox', { name: 'Select All' }).check();

  const picker = page.getByRole('combobox', { name: 'Contact lists' });
  await picker.click();
  await page.getByRole('option', { name: 'Diwali VIPs (3)' }).click();
  await page.keyboard.press('Escape');

  const message = page.getByRole('textbox', { name: 'Message', exact: true });
  await message.fill('{Hi|Namaste} {{name|friend}}, the {{town}} store opens at 10');
  await expect(page.getByRole('alert', { name: 'Unknown field' })).toHaveText(
    'Unknown field {{town}} (available: name, city)',
  );
  await message.fill('{Hi|Namaste} {{name|friend}}, the {{city|nearest}} store opens at 10');
  await expect(page.getByRole('alert', { name: 'Unknown field' })).toHaveCount(0);
  const preview = page.getByRole('region', { name: 'Message preview' });
  await expect(preview.getByLabel('Preview for 919800000061')).toContainText(
    'Hi Kiran, the Nagpur store opens at 10',
  );
  await expect(preview.getByLabel('Preview for 919800000062')).toContainText(
    'Namaste friend, the Delhi store opens at 10',
  );
  await expect(preview.getByLabel('Preview for 919800000051')).toContainText(
    'Hi Asha, the Pune store opens at 10',
  );

  if (process.env.SCREENSHOTS_DIR) {
    await page.screenshot({ path: `${process.env.SCREENSHOTS_DIR}/bulk-personalised.png`, fullPage: true });
    await page.setViewportSize({ width: 360, height: 740 });
    await page.screenshot({
      path: `${process.env.SCREENSHOTS_DIR}/bulk-personalised-360.png`,
      fullPage: true,
    });
    await page.setViewportSize({ width: 1280, height: 800 });
  }
  await page.getByRole('button', { name: 'Send Now' }).click();
  await expect(page.getByRole('status', { name: 'Opted-out numbers' })).toHaveText(
    '1 opted-out number was left out and not charged: 919800000052.',
  );
  // 2 from the CSV + 2 of the list's 3 (one opted out): 4 credits, not 5.
  await expect(page.getByRole('status', { name: 'Status' })).toContainText('Message sending', {
    timeout: 30_000,
  });
  await expect
    .poll(async () => (await outbox(request, headers, accountId)).length, { timeout: 30_000 })
    .toBe(4);
  const texts = Object.fromEntries(
    (await outbox(request, headers, accountId)).map((m) => [m.chatId.split('@')[0], m.text]),
  );
  const variant = /^(Hi|Namaste) /;
  expect(Object.keys(texts).sort()).toEqual(['919800000051', '919800000053', '919800000061', '919800000062']);
  expect(texts['919800000061']?.replace(variant, '')).toBe('Kiran, the Nagpur store opens at 10');
  expect(texts['919800000062']?.replace(variant, '')).toBe('friend, the Delhi store opens at 10');
  expect(texts['919800000051']?.replace(variant, '')).toBe('Asha, the Pune store opens at 10');
  expect(texts['919800000053']?.replace(variant, '')).toBe('Meena, the nearest store opens at 10');
  for (const t of Object.values(texts)) expect(t).toMatch(variant);

  await expect(balanceBubble(page)).toHaveText('Balance: 6');
  const charged = (await ledger(request, user.id))
    .filter((e) => e.delta < 0)
    .reduce((n, e) => n + e.delta, 0);
  expect(charged).toBe(-4);
});
