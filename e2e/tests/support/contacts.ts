import type { APIRequestContext } from '@playwright/test';
import { expect } from '../../fixtures.ts';

/** Imports a contact list from CSV text through the API, as the Contacts page's Import does. */
export async function importContactList(
  request: APIRequestContext,
  token: string,
  name: string,
  csv: string,
): Promise<void> {
  const res = await request.post('/api/contact-lists/import', {
    headers: { authorization: `Bearer ${token}` },
    multipart: { name, file: { name: `${name}.csv`, mimeType: 'text/csv', buffer: Buffer.from(csv) } },
  });
  expect(res.ok(), await res.text()).toBe(true);
}
