import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog, waGroups } from '../../src/db/schema.ts';
import { useCloudApp } from '../fakes/cloud-rig.ts';
import { appWithEngine, bearer, DB_KINDS, linkedAccount } from '../helpers.ts';

const numbers = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => String(919800094000 + from + i));

describe.each(DB_KINDS)('making a WhatsApp group with the simulator on %s', (kind) => {
  const users = new Set<string>();
  const { t } = appWithEngine(kind, { SIMULATOR_GROUPS: '3' }, users);
  const create = (token: string, accountId: string, payload: object) =>
    t.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/groups`,
      headers: bearer(token),
      payload,
    });

  it('adds the first five members, names the rest with the invite link, and lists the group at once', async () => {
    const { user, token, accountId } = await linkedAccount(t, { credits: 5, track: users });
    // Seven numbers in several forms, one twice and one not on WhatsApp (ending 0000).
    const typed = [...numbers(1, 3), '+91 98000 94001', '919800090000', ...numbers(4, 3)];
    const res = await create(token, accountId, { subject: '  Diwali helpers  ', members: typed });
    expect(res.statusCode, res.body).toBe(200);
    const made = res.json();
    expect(made).toMatchObject({
      success: true,
      message: 'Group created',
      groupName: 'Diwali helpers',
      added: [...numbers(1, 3), numbers(4, 1)[0]],
      notAdded: ['919800090000'],
      toInvite: numbers(5, 2),
    });
    expect(made.groupId).toMatch(/^120363\d{12}@g\.us$/);
    expect(made.inviteLink).toMatch(/^https:\/\/chat\.whatsapp\.com\/.+/);

    const [row] = await t.db
      .select()
      .from(waGroups)
      .where(and(eq(waGroups.accountId, accountId), eq(waGroups.groupId, made.groupId)));
    expect(row).toMatchObject({ subject: 'Diwali helpers', isAdmin: true });
    // The account (super admin) and the four added: the one not on WhatsApp is not in it.
    expect(
      row!.participants
        .filter((p) => p.admin !== 'superadmin')
        .map((p) => p.phoneNumber)
        .sort(),
    ).toEqual(numbers(1, 4));
    expect(row!.participants.filter((p) => p.admin === 'superadmin')).toHaveLength(1);
    const list = await t.app.inject({
      method: 'GET',
      url: `/api/groupsList/${accountId}`,
      headers: bearer(token),
    });
    expect((list.json().groups as Array<{ groupName: string }>).map((g) => g.groupName)).toContain(
      'Diwali helpers',
    );
    const audit = await t.db.select().from(auditLog).where(eq(auditLog.action, 'group.create'));
    expect(audit.some((a) => a.actorId === user.id)).toBe(true);
  });

  it("refuses a group with no name, no members, or a number that is none (400), and another user's account (404)", async () => {
    const { token, accountId } = await linkedAccount(t, { credits: 5, track: users });
    const noName = await create(token, accountId, { subject: '  ', members: numbers(1, 1) });
    expect(noName.statusCode).toBe(400);
    expect(noName.json().message).toBe('Group name is required');
    const long = await create(token, accountId, { subject: 'x'.repeat(101), members: numbers(1, 1) });
    expect(long.json().message).toBe('Group name can have at most 100 characters');
    const none = await create(token, accountId, { subject: 'Empty', members: [' '] });
    expect(none.json().message).toBe('Give at least one member: a number, or a contact list');
    const bad = await create(token, accountId, { subject: 'Bad', members: ['12ab'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe('Invalid phone number: 12ab');
    const other = await linkedAccount(t, { credits: 5, track: users });
    expect(
      (await create(other.token, accountId, { subject: 'Mine', members: numbers(1, 1) })).statusCode,
    ).toBe(404);
    const groups = await t.db.select().from(waGroups).where(eq(waGroups.accountId, accountId));
    expect(groups.map((g) => g.subject)).not.toContain('Mine');
  });
});

describe.each(DB_KINDS)('a Cloud API number on %s', (kind) => {
  const rig = useCloudApp(kind);

  it('cannot make groups: 400, and its capabilities say so', async () => {
    const a = await rig.cloudAccount(10);
    const res = await rig.post(a.token, `/api/session/${a.accountId}/groups`, {
      subject: 'Team',
      members: ['919800094001'],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Groups can be made by linked WhatsApp accounts only');
    const accounts = await rig.t.app.inject({
      method: 'GET',
      url: '/api/sessions',
      headers: bearer(a.token),
    });
    const own = (
      accounts.json().sessions as Array<{ sessionId: string; capabilities: { createGroups: boolean } }>
    ).find((s) => s.sessionId === a.accountId);
    expect(own?.capabilities.createGroups).toBe(false);
  });
});
