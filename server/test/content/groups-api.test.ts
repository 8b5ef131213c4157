import { and, eq, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountRunner, startAccountRunner } from '../../src/accounts/runner.ts';
import { accounts, waGroups } from '../../src/db/schema.ts';
import {
  ANNOUNCE_ONLY_NAME,
  TRICKY_NAME_FORMULA,
  TRICKY_NAME_MARKUP,
} from '../../src/transport/simulator/network.ts';
import { connectedAccount, createAccount } from '../fakes/accounts.ts';
import { bearer, buildUser, DB_KINDS, loginToken, testAppFor } from '../helpers.ts';
import { waitFor } from '../wait.ts';

type Summary = {
  groupId: string;
  groupName: string;
  admins: string[];
  inviteLink: string | null;
  participantCount: number;
  adminCount: number;
  creationDate: string | null;
  updatedDate: string | null;
};
type Chat = {
  groupId: string;
  groupName: string;
  adminPhone: string[];
  groupLink: string | null;
  participantCount: number;
  adminCount: number;
  creationDate: string | null;
  updatedDate: string | null;
  owner: string | null;
  participants: Array<{ phoneNumber: string; isAdmin: boolean; isSuperAdmin: boolean }>;
  lastMessage: { sender: string; timestamp: number; body: string | null } | null;
};

describe.each(DB_KINDS)('groups API with the simulator on %s', (kind) => {
  const t = testAppFor(kind, { SIMULATOR_GROUPS: '12', SESSION_LEASE_MS: '3000' });
  let runner: AccountRunner;
  let token: string;
  let accountId: string;
  beforeAll(async () => {
    runner = await startAccountRunner(t.ctx);
    const user = await buildUser(t);
    token = await loginToken(t.app, user.username);
    accountId = await connectedAccount(t, token, '919876500001');
    // Groups are fetched on connect, then the invite codes of admin groups one by one.
    await waitFor('12 groups, invite codes of the admin ones', async () => {
      const rows = await t.db.select().from(waGroups).where(eq(waGroups.accountId, accountId));
      return rows.length === 12 && rows.filter((r) => r.isAdmin).every((r) => r.inviteCode);
    });
  });
  afterAll(async () => {
    await runner.stop();
  });

  const get = (url: string, tok = token) => t.app.inject({ method: 'GET', url, headers: bearer(tok) });

  it('lists groups in the compose shape: links only where the account is admin', async () => {
    const res = await get(`/api/groupsList/${accountId}`);
    expect(res.statusCode).toBe(200);
    const body = res.json() as { success: boolean; groups: Summary[]; message: string; count: number };
    expect(body.success).toBe(true);
    expect(body.count).toBe(12);
    expect(body.groups).toHaveLength(12);
    expect(body.message).toBe('12 groups found');
    const rows = await t.db.select().from(waGroups).where(eq(waGroups.accountId, accountId));
    for (const g of body.groups) {
      const row = rows.find((r) => r.groupId === g.groupId)!;
      expect(g.groupId).toMatch(/^120363\d{12}@g\.us$/);
      expect(g.participantCount).toBe(row.participants.length);
      expect(g.participantCount).toBeGreaterThanOrEqual(2);
      expect(g.participantCount).toBeLessThanOrEqual(256);
      expect(g.adminCount).toBe(g.admins.length);
      for (const phone of g.admins) expect(phone).toMatch(/^\d{8,15}$/);
      if (row.isAdmin) expect(g.inviteLink).toMatch(/^https:\/\/chat\.whatsapp\.com\/[A-Za-z0-9_-]{22}$/);
      else expect(g.inviteLink).toBeNull();
      expect(new Date(g.creationDate!).getTime()).toBeLessThan(Date.now());
      expect(new Date(g.updatedDate!).toISOString()).toBe(g.updatedDate);
    }
    const sizes = body.groups.map((g) => g.participantCount);
    expect(Math.max(...sizes)).toBe(256);
    expect(Math.min(...sizes)).toBe(2);
    // Some groups as admin, some as member only.
    expect(body.groups.some((g) => g.inviteLink)).toBe(true);
    expect(body.groups.some((g) => !g.inviteLink)).toBe(true);
  });

  it('keeps tricky names exactly as WhatsApp has them', async () => {
    const names = ((await get(`/api/groupsList/${accountId}`)).json().groups as Summary[]).map(
      (g) => g.groupName,
    );
    expect(names).toContain(TRICKY_NAME_MARKUP);
    expect(TRICKY_NAME_MARKUP).toMatch(/<b>.*&.*".*'/);
    expect(names).toContain(TRICKY_NAME_FORMULA);
    expect(TRICKY_NAME_FORMULA.startsWith('=')).toBe(true);
    const announce = ((await get(`/api/groupsList/${accountId}`)).json().groups as Summary[]).find(
      (g) => g.groupName === ANNOUNCE_ONLY_NAME,
    );
    expect(announce?.inviteLink).toBeNull();
  });

  it('lists group chats with participants as phone numbers, roles and last messages', async () => {
    const res = await get(`/api/groupChats/${accountId}`);
    expect(res.statusCode).toBe(200);
    const body = res.json() as { success: boolean; groups: Chat[]; message: string };
    expect(body.success).toBe(true);
    expect(body.groups).toHaveLength(12);
    for (const g of body.groups) {
      expect(g.participants).toHaveLength(g.participantCount);
      // The simulator sends half the members as @lid ids; the account knows their numbers.
      for (const p of g.participants) expect(p.phoneNumber).toMatch(/^\d{8,15}$/);
      expect(g.participants.filter((p) => p.isAdmin).length).toBe(g.adminCount);
      expect(g.participants.filter((p) => p.isSuperAdmin).every((p) => p.isAdmin)).toBe(true);
      expect(g.adminPhone).toEqual(
        expect.arrayContaining(g.participants.filter((p) => p.isAdmin).map((p) => p.phoneNumber)),
      );
      expect(g.owner).toMatch(/^\d{8,15}$/);
      expect(Number.isInteger(g.lastMessage!.timestamp)).toBe(true);
      // Seconds, not milliseconds.
      expect(g.lastMessage!.timestamp).toBeLessThan(Date.now() / 1000);
      expect(g.lastMessage!.timestamp).toBeGreaterThan(1_600_000_000);
      expect(g.lastMessage!.sender).toMatch(/^\d{8,15}$/);
    }
    expect(body.groups.some((g) => g.lastMessage?.body === null)).toBe(true);
    const own = body.groups.find((g) => g.participantCount === 256)!;
    expect(own.owner).toBe('919876500001');
    expect(own.groupLink).toMatch(/^https:\/\/chat\.whatsapp\.com\//);
    expect(own.participants.find((p) => p.phoneNumber === '919876500001')).toEqual({
      phoneNumber: '919876500001',
      isAdmin: true,
      isSuperAdmin: true,
    });
    const announce = body.groups.find((g) => g.groupName === ANNOUNCE_ONLY_NAME)!;
    expect(announce.groupLink).toBeNull();
    expect(announce.participants.find((p) => p.phoneNumber === '919876500001')?.isAdmin).toBe(false);
  });

  it('refresh=1 asks the owning node for a fresh fetch, at most once a minute', async () => {
    const [before] = await t.db.select().from(accounts).where(eq(accounts.accountId, accountId));
    const res = await get(`/api/groupChats/${accountId}?refresh=1`);
    expect(res.statusCode).toBe(200);
    const fetched = await waitFor('a later groups fetch', async () => {
      const [row] = await t.db.select().from(accounts).where(eq(accounts.accountId, accountId));
      return row!.groupsFetchedAt! > before!.groupsFetchedAt! ? row!.groupsFetchedAt : undefined;
    });
    const [afterFirst] = await t.db.select().from(accounts).where(eq(accounts.accountId, accountId));
    await get(`/api/groupsList/${accountId}?refresh=1`);
    const [afterSecond] = await t.db.select().from(accounts).where(eq(accounts.accountId, accountId));
    expect(afterSecond!.groupsRefreshRequestedAt).toEqual(afterFirst!.groupsRefreshRequestedAt);
    expect(fetched).toBeInstanceOf(Date);
    // Invite codes survive a refresh.
    const withCodes = await t.db
      .select()
      .from(waGroups)
      .where(and(eq(waGroups.accountId, accountId), isNotNull(waGroups.inviteCode)));
    expect(withCodes.length).toBeGreaterThan(0);
  });

  it('the same session id always gets the same groups', async () => {
    const a = (await get(`/api/groupChats/${accountId}`)).json().groups as Chat[];
    const b = (await get(`/api/groupChats/${accountId}`)).json().groups as Chat[];
    expect(b.map((g) => [g.groupId, g.groupName, g.participantCount])).toEqual(
      a.map((g) => [g.groupId, g.groupName, g.participantCount]),
    );
  });

  it('answers an empty list for a session that is not connected, and 404 for another user', async () => {
    const pending = await createAccount(t, token, { phoneNumber: '919876500002', sessionName: 'Pending' });
    const res = await get(`/api/groupsList/${pending}`);
    expect(res.json()).toEqual({ success: true, groups: [], message: 'Session is not connected', count: 0 });
    const chats = await get(`/api/groupChats/${pending}`);
    expect(chats.json()).toEqual({ success: true, groups: [], message: 'Session is not connected' });

    const other = await buildUser(t);
    const otherToken = await loginToken(t.app, other.username);
    for (const url of [`/api/groupsList/${accountId}`, `/api/groupChats/${accountId}?refresh=1`]) {
      const r = await get(url, otherToken);
      expect(r.statusCode).toBe(404);
      expect(r.json()).toEqual({ success: false, message: 'Session not found' });
    }
    expect((await t.app.inject({ method: 'GET', url: `/api/groupsList/${accountId}` })).statusCode).toBe(401);
  });
});
