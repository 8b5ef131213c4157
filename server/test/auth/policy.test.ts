import { describe, expect, it } from 'vitest';
import { media } from '../../src/db/schema.ts';
import {
  type Action,
  authorizeAccount,
  authorizeGroups,
  authorizeJob,
  authorizeUser,
  can,
  mayUseMedia,
  type Resource,
} from '../../src/policy/access.ts';
import { buildAccount, buildGroups, buildJob } from '../fakes/messaging.ts';
import { buildAdmin, buildUser, DB_KINDS, testAppFor } from '../helpers.ts';

const ADMIN = { id: 'admin', role: 'ADMIN' as const };
const OTHER_ADMIN = { id: 'other-admin', role: 'ADMIN' as const };
const OWNER = { id: 'owner', role: 'USER' as const };
const STRANGER = { id: 'stranger', role: 'USER' as const };
/** The owner's account: a USER managed by ADMIN. */
const OWNED = { id: 'owner', managedBy: 'admin' };

/**
 * The permission table. Each row: resource, action, then who may (owner, managing admin,
 * another admin, another user). A yes anywhere else is a leak.
 */
const TABLE: Array<[Resource, Action, 'yes' | 'no', 'yes' | 'no', 'no', 'no']> = [
  // resource   action     owner  managing admin
  ['user', 'read', 'yes', 'yes', 'no', 'no'],
  ['user', 'act', 'yes', 'no', 'no', 'no'],
  ['user', 'manage', 'no', 'yes', 'no', 'no'],
  ['session', 'read', 'yes', 'yes', 'no', 'no'],
  ['session', 'act', 'yes', 'no', 'no', 'no'],
  ['session', 'manage', 'no', 'no', 'no', 'no'],
  ['group', 'read', 'yes', 'yes', 'no', 'no'],
  ['group', 'act', 'yes', 'no', 'no', 'no'],
  ['group', 'manage', 'no', 'no', 'no', 'no'],
  ['job', 'read', 'yes', 'yes', 'no', 'no'],
  ['job', 'act', 'yes', 'no', 'no', 'no'],
  ['job', 'manage', 'no', 'no', 'no', 'no'],
  ['media', 'read', 'yes', 'yes', 'no', 'no'],
  ['media', 'act', 'yes', 'no', 'no', 'no'],
  ['media', 'manage', 'no', 'no', 'no', 'no'],
  ['ledger', 'read', 'yes', 'yes', 'no', 'no'],
  ['ledger', 'act', 'no', 'no', 'no', 'no'],
  ['ledger', 'manage', 'no', 'yes', 'no', 'no'],
  ['webhook', 'read', 'yes', 'no', 'no', 'no'],
  ['webhook', 'act', 'yes', 'no', 'no', 'no'],
  ['webhook', 'manage', 'no', 'no', 'no', 'no'],
  ['apiKey', 'read', 'yes', 'no', 'no', 'no'],
  ['apiKey', 'act', 'yes', 'no', 'no', 'no'],
  ['apiKey', 'manage', 'no', 'no', 'no', 'no'],
  ['contactList', 'read', 'yes', 'no', 'no', 'no'],
  ['contactList', 'act', 'yes', 'no', 'no', 'no'],
  ['contactList', 'manage', 'no', 'no', 'no', 'no'],
];

describe('the access policy', () => {
  it.each(TABLE)(
    '%s %s: owner %s, managing admin %s, another admin %s, another user %s',
    (resource, action, ...who) => {
      const answers = [OWNER, ADMIN, OTHER_ADMIN, STRANGER].map((actor) =>
        can(actor, action, resource, OWNED) ? 'yes' : 'no',
      );
      expect(answers).toEqual(who);
    },
  );

  it('gives a managing admin nothing over their own account beyond what an owner has', () => {
    const self = { id: 'admin', managedBy: null };
    expect(can(ADMIN, 'manage', 'user', self)).toBe(false);
    expect(can(ADMIN, 'act', 'session', self)).toBe(true);
  });
});

describe.each(DB_KINDS)('the access policy on stored rows (%s)', (kind) => {
  const t = testAppFor(kind);

  it('answers 404 for what is not yours, the row for what is, and 400 for a chat that is not your group', async () => {
    const admin = await buildAdmin(t);
    const otherAdmin = await buildAdmin(t);
    const ownerRow = await buildUser(t, { managedBy: admin.id });
    const stranger = await buildUser(t, { managedBy: admin.id });
    const owner = { id: ownerRow.id, role: 'USER' as const };
    const asAdmin = { id: admin.id, role: 'ADMIN' as const };
    const asOtherAdmin = { id: otherAdmin.id, role: 'ADMIN' as const };
    const asStranger = { id: stranger.id, role: 'USER' as const };
    const accountId = await buildAccount(t, owner.id);
    const groups = await buildGroups(t, accountId, [2, 3]);
    await t.db
      .insert(media)
      .values({ id: 'f'.repeat(64), mime: 'image/png', size: 1, bytes: Buffer.from([1]) });
    const jobId = await buildJob(t, owner.id, accountId, { mediaId: 'f'.repeat(64) });

    const status = (p: Promise<unknown>) =>
      p.then(
        () => 200,
        (e: { status: number; message: string }) => `${e.status} ${e.message}`,
      );

    expect(await status(authorizeUser(t.db, asAdmin, 'manage', owner.id))).toBe(200);
    expect(await status(authorizeUser(t.db, asOtherAdmin, 'manage', owner.id))).toBe('404 User not found');
    expect(await status(authorizeUser(t.db, owner, 'manage', owner.id, 'ledger'))).toBe('404 User not found');
    expect(await status(authorizeUser(t.db, asAdmin, 'manage', 'missing'))).toBe('404 User not found');

    expect(await status(authorizeAccount(t.db, owner, 'act', accountId))).toBe(200);
    expect(await status(authorizeAccount(t.db, asAdmin, 'read', accountId))).toBe(200);
    expect(await status(authorizeAccount(t.db, asAdmin, 'act', accountId))).toBe('404 Session not found');
    expect(await status(authorizeAccount(t.db, asStranger, 'read', accountId))).toBe('404 Session not found');
    expect(
      await status(authorizeAccount(t.db, asStranger, 'act', accountId, 'No active session found')),
    ).toBe('404 No active session found');

    expect(await status(authorizeJob(t.db, owner, 'act', jobId))).toBe(200);
    expect(await status(authorizeJob(t.db, asAdmin, 'read', jobId))).toBe(200);
    expect(await status(authorizeJob(t.db, asAdmin, 'act', jobId))).toBe('404 Job not found');
    expect(await status(authorizeJob(t.db, asOtherAdmin, 'read', jobId))).toBe('404 Job not found');
    expect(await status(authorizeJob(t.db, asStranger, 'read', jobId))).toBe('404 Job not found');

    expect(await mayUseMedia(t.db, owner, 'act', 'f'.repeat(64))).toBe(true);
    expect(await mayUseMedia(t.db, asAdmin, 'read', 'f'.repeat(64))).toBe(true);
    expect(await mayUseMedia(t.db, asStranger, 'read', 'f'.repeat(64))).toBe(false);

    expect(await status(authorizeGroups(t.db, owner, 'act', accountId, groups))).toBe(200);
    expect(
      await status(
        authorizeGroups(t.db, owner, 'act', accountId, [groups[0]!, '919812345678@s.whatsapp.net']),
      ),
    ).toBe('400 Not a group of this account: 919812345678@s.whatsapp.net');
    expect(await status(authorizeGroups(t.db, owner, 'act', accountId, ['120363999@g.us']))).toBe(
      '400 Not a group of this account: 120363999@g.us',
    );
    expect(await status(authorizeGroups(t.db, asStranger, 'act', accountId, groups))).toBe(
      '404 Session not found',
    );
  });
});
