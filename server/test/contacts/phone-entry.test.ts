import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { accounts } from '../../src/db/schema.ts';
import { buildAccount, recipientsOf } from '../fakes/messaging.ts';
import { bearer, buildUser, DB_KINDS, loginToken, testAppFor } from '../helpers.ts';

// Every number a person types enters through the phone rule (contract/phone.ts),
// the region from DEFAULT_COUNTRY_CODE, and is stored as country code + digits.
describe.each(DB_KINDS)('phone numbers as people write them, on %s', (kind) => {
  const users = new Set<string>();
  const t = testAppFor(kind, {}, users);

  async function user(flags: { multi?: boolean } = {}) {
    const u = await buildUser(t, {
      credits: 100,
      isBulkMessagingEnabled: true,
      isMultisessionSupported: flags.multi ?? true,
    });
    users.add(u.id);
    return { user: u, token: await loginToken(t.app, u.username) };
  }

  const createAccount = (token: string, phoneNumber: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/create-instance',
      headers: bearer(token),
      payload: { phoneNumber, sessionName: `Shop ${phoneNumber}` },
    });

  it('Add Instance stores a national number with the country code, and refuses what is no number', async () => {
    const { user: u, token } = await user();
    const res = await createAccount(token, '9123456780');
    expect(res.statusCode).toBe(200);
    const accountId = res.json().sessionId as string;
    expect(accountId).toMatch(/^919123456780_/);
    const [row] = await t.db.select().from(accounts).where(eq(accounts.accountId, accountId));
    expect(row).toMatchObject({ userId: u.id, phoneNumber: '919123456780' });

    const dialled = await createAccount(token, '0091 98000 15838');
    expect(dialled.statusCode).toBe(200);
    const list = await t.app.inject({ method: 'GET', url: '/api/sessions', headers: bearer(token) });
    expect(
      list
        .json()
        .sessions.map((s: { phoneNumber: string }) => s.phoneNumber)
        .sort(),
    ).toEqual(['919123456780', '919800015838']);

    for (const [input, message] of [
      ['12345', 'Invalid phone number: 12345'],
      ['98000 1583', 'Invalid phone number: 98000 1583'],
      ['phone', 'Invalid phone number: phone'],
    ]) {
      const bad = await createAccount(token, input!);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toBe(message);
    }
  });

  it('the send route stores numbers written the Indian way, from a spreadsheet or with 00, as 91…', async () => {
    const { user: u, token } = await user();
    const accountId = await buildAccount(t, u.id);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(token),
      payload: {
        chatIds: ['09800015838', '0091 98000 15839', '919800015840.0', '9800015841', '+91 98000-15842'],
        recipients: [{ chatId: '098000 15843', fields: { name: 'Asha' } }],
        content: 'Hello',
      },
    });
    expect(res.statusCode).toBe(200);
    const rows = await recipientsOf(t.db, res.json().jobId);
    expect(rows.map((r) => r.chatId)).toEqual([
      '919800015838@s.whatsapp.net',
      '919800015839@s.whatsapp.net',
      '919800015840@s.whatsapp.net',
      '919800015841@s.whatsapp.net',
      '919800015842@s.whatsapp.net',
      '919800015843@s.whatsapp.net',
    ]);

    // The same number written two ways is one recipient, charged once.
    const twice = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(token),
      payload: { chatIds: ['09800015838', '919800015838'], content: 'Once' },
    });
    expect(twice.statusCode).toBe(200);
    expect((await recipientsOf(t.db, twice.json().jobId)).map((r) => r.chatId)).toEqual([
      '919800015838@s.whatsapp.net',
    ]);

    const bad = await t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(token),
      payload: { chatIds: ['09800015838', '12345'], content: 'x' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe('Invalid phone number: 12345');
  });
});
