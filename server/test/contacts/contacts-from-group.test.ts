import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_LIMITS } from '../../src/contacts/import-limits.ts';
import { queryRows } from '../../src/db/client.ts';
import { contactLists } from '../../src/db/schema.ts';
import { upsertGroups } from '../../src/groups/repository.ts';
import { newId } from '../../src/ids.ts';
import { createAccount } from '../fakes/accounts.ts';
import { bearer, buildUser, DB_KINDS, loginToken, testAppFor } from '../helpers.ts';

describe.each(DB_KINDS)("'Save members as a contact list' on %s", (kind) => {
  const t = testAppFor(kind);
  let token: string;
  let userId: string;
  let accountId: string;
  const groupId = '120363000000000001@g.us';

  beforeAll(async () => {
    const user = await buildUser(t);
    userId = user.id;
    token = await loginToken(t.app, user.username);
    accountId = await createAccount(t, token, { phoneNumber: '+91 98765 43210', sessionName: 'Shop' });
    await upsertGroups(
      t.db,
      accountId,
      [
        {
          groupId,
          subject: 'Diwali buyers',
          owner: '919876543210@s.whatsapp.net',
          createdAt: new Date('2026-10-01T10:00:00Z'),
          isAdmin: true,
          announce: false,
          participants: [
            // The account itself: left out of its own list.
            { id: '919876543210@s.whatsapp.net', phoneNumber: null, lid: null, admin: 'superadmin' },
            { id: '919800000101@s.whatsapp.net', phoneNumber: null, lid: null, admin: 'admin' },
            {
              id: '123456789012345@lid',
              phoneNumber: '919800000102',
              lid: '123456789012345@lid',
              admin: null,
            },
            // Known only by a hidden id: no number to message.
            { id: '987654321098765@lid', phoneNumber: null, lid: '987654321098765@lid', admin: null },
            { id: '447911123456@s.whatsapp.net', phoneNumber: null, lid: null, admin: null },
          ],
        },
      ],
      { replaceAll: true },
    );
  });

  const save = (tok: string, payload: object) =>
    t.app.inject({ method: 'POST', url: '/api/contact-lists/from-group', headers: bearer(tok), payload });

  it('saves the members with their role, without the account itself or hidden ids', async () => {
    const res = await save(token, { sessionId: accountId, groupId });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      success: true,
      imported: 3,
      skipped: 1,
      list: { name: 'Diwali buyers', count: 3, optedOut: 0, fields: ['role'] },
    });
    const contacts = await t.app.inject({
      method: 'GET',
      url: `/api/contact-lists/${body.list.id}/contacts`,
      headers: bearer(token),
    });
    expect(
      contacts.json().contacts.map((c: { phoneNumber: string; fields: object }) => [c.phoneNumber, c.fields]),
    ).toEqual([
      ['919800000101', { role: 'Admin' }],
      ['919800000102', { role: 'Member' }],
      ['447911123456', { role: 'Member' }],
    ]);
    const lists = await t.app.inject({ method: 'GET', url: '/api/contact-lists', headers: bearer(token) });
    expect(lists.json().lists.map((l: { name: string }) => l.name)).toEqual(['Diwali buyers']);
  });

  it('takes a name of its own', async () => {
    const res = await save(token, { sessionId: accountId, groupId, name: '  VIP members ' });
    expect(res.statusCode).toBe(200);
    expect(res.json().list.name).toBe('VIP members');
  });

  it("answers 404 for another user's session and for a group the account is not in", async () => {
    const other = await buildUser(t);
    const otherToken = await loginToken(t.app, other.username);
    const foreign = await save(otherToken, { sessionId: accountId, groupId });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().message).toBe('Session not found');
    const missing = await save(token, { sessionId: accountId, groupId: '120363999999999999@g.us' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toBe('Group not found');
    const lists = await t.app.inject({
      method: 'GET',
      url: '/api/contact-lists',
      headers: bearer(otherToken),
    });
    expect(lists.json().lists).toEqual([]);
  });

  it('keeps to the lists a user may have (100): a save past them is refused and adds nothing', async () => {
    const [row] = await queryRows<{ n: number }>(
      t.db,
      sql`SELECT count(*)::int AS n FROM contact_lists WHERE user_id = ${userId}`,
    );
    await t.db.insert(contactLists).values(
      Array.from({ length: IMPORT_LIMITS.maxListsPerUser - Number(row?.n) }, (_, i) => ({
        id: newId(),
        userId,
        name: `Filler ${i}`,
        fields: [],
      })),
    );
    const res = await save(token, { sessionId: accountId, groupId });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      success: false,
      message: 'You have 100 contact lists: delete one to add another',
    });
    const lists = await t.app.inject({ method: 'GET', url: '/api/contact-lists', headers: bearer(token) });
    expect(lists.json().lists).toHaveLength(IMPORT_LIMITS.maxListsPerUser);
  });
});
