import fs from 'node:fs';
import Papa from 'papaparse';
import { expect, linkedUserForFile, test } from '../fixtures.ts';
import { FORMULA_NAME, groupDate, MARKUP_NAME, signInForGroups, TZ, table } from './support/groups.ts';
import { interceptPrint, printed, printedTable } from './support/print.ts';

test.use({ timezoneId: TZ });

/** The columns of the CSV file and the print view (the table's own, less the QR code, plus User). */
const EXPORT_COLUMNS = [
  'Serial No',
  'User',
  'Group Name',
  'Admin Numbers',
  'Group Link',
  'Members Count',
  'Admin Count',
  'Status',
  'Created Date & Time',
  'Updated Date & Time',
];

test.describe('Group List exports', () => {
  const shared = linkedUserForFile({ credits: 10, phoneNumber: '919811100001' });

  test('the CSV file has the spec columns, the fixed values and the names kept harmless', async ({
    page,
    request,
  }) => {
    const { groups } = await signInForGroups(shared, page, request);
    await page.goto('/#/groups');
    await expect(table(page)).toBeVisible();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('WhatsApp_groups.csv');
    const text = fs.readFileSync((await download.path())!, 'utf8');
    expect(text.charCodeAt(0)).toBe(0xfeff);
    const parsed = Papa.parse<string[]>(text.slice(1), { skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    const [header, ...rows] = parsed.data;
    expect(header).toEqual(EXPORT_COLUMNS);
    expect(rows).toHaveLength(groups.length);
    groups.forEach((g, i) => {
      const row = rows[i]!;
      expect(row[0]).toBe(String(i + 1));
      expect(row[1]).toBe('SUPER ADMIN');
      expect(row[2]).toBe(g.groupName.startsWith('=') ? `'${g.groupName}` : g.groupName);
      expect(row[3]).toBe(g.adminPhone.length ? g.adminPhone.join(', ') : 'N/A');
      expect(row[4]).toBe(g.groupLink ?? 'Not An Admin');
      expect(row[5]).toBe(String(g.participantCount));
      expect(row[6]).toBe(String(g.adminCount));
      expect(row[7]).toBe('Active');
      expect(row[8]).toBe(groupDate(g.creationDate));
      expect(row[9]).toBe(groupDate(g.updatedDate));
    });
    expect(rows.map((r) => r[2])).toContain(MARKUP_NAME);
    expect(rows.map((r) => r[2])).toContain(`'${FORMULA_NAME}`);
  });

  test('the print view shows the groups escaped, prints by itself and closes about 500 ms later', async ({
    page,
    request,
  }) => {
    await interceptPrint(page);
    const { groups } = await signInForGroups(shared, page, request);
    await page.goto('/#/groups');
    await expect(table(page)).toBeVisible();
    const popup = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'PDF/Print' }).click();
    const view = await popup;
    await expect.poll(async () => (await printed(page)).length).toBe(1);
    await expect.poll(() => view.isClosed()).toBe(true);
    const [record] = await printed(page);
    expect(record!.closedAt! - record!.printedAt).toBeGreaterThanOrEqual(450);
    expect(record!.closedAt! - record!.printedAt).toBeLessThan(2000);
    const printedView = await printedTable(page, record!.html);
    expect(printedView.markup).toBe(0);
    expect(printedView.rows[0]).toEqual(EXPORT_COLUMNS);
    expect(printedView.rows.slice(1).map((r) => r[2])).toEqual(groups.map((g) => g.groupName));
    expect(printedView.rows.slice(1).map((r) => r[4])).toEqual(
      groups.map((g) => g.groupLink ?? 'Not An Admin'),
    );
  });
});
