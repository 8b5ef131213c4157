import { bareJid, jidUser } from '@wa/contract';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/client.ts';
import type { StoredParticipant } from '../db/schema.ts';
import {
  type GroupCacheEntry,
  listGroups,
  setInviteCode,
  updateGroup,
  upsertGroups,
} from '../groups/repository.ts';
import type { GroupInfo, GroupParticipantInfo, Transport } from '../transport/types.ts';
import { updateOwnedAccount } from './repository.ts';

/** The linked account's own ids, to tell whether it is admin of a group. */
export type OwnIds = { ownJid: string | null; ownLid: string | null };

/** What the group sync reads of the account driver it works for. */
export interface SyncedAccount extends OwnIds {
  readonly accountId: string;
  readonly transport: Transport;
  readonly stopped: boolean;
  readonly connected: boolean;
}

export const toStoredParticipant = (p: GroupParticipantInfo): StoredParticipant => ({
  id: p.id,
  phoneNumber: p.phoneNumber,
  lid: p.lid,
  admin: p.admin,
});

/** Whether the linked account is admin among these participants, matched by phone JID or LID. */
export function isAdminIn(own: OwnIds, participants: GroupParticipantInfo[]): boolean {
  const ids = new Set([bareJid(own.ownJid), bareJid(own.ownLid)].filter((x): x is string => !!x));
  const ownBare = bareJid(own.ownJid);
  const ownPhone = ownBare ? jidUser(ownBare) : null;
  return participants.some(
    (p) =>
      p.admin !== null &&
      (ids.has(bareJid(p.id) ?? '') ||
        ids.has(bareJid(p.lid) ?? '') ||
        (ownPhone !== null && p.phoneNumber === ownPhone)),
  );
}

/** Groups as the transport reports them, as rows of the cache. */
export function toCache(own: OwnIds, groups: GroupInfo[]): GroupCacheEntry[] {
  return groups.map((g) => ({
    groupId: g.id,
    subject: g.subject,
    owner: g.owner,
    createdAt: g.creation ? new Date(g.creation * 1000) : null,
    participants: g.participants.map(toStoredParticipant),
    isAdmin: isAdminIn(own, g.participants),
    announce: g.announce,
    addressingMode: g.addressingMode ?? null,
    ephemeralDuration: g.ephemeralDuration ?? null,
    lastMessage: g.lastMessage
      ? { sender: g.lastMessage.sender, timestamp: g.lastMessage.timestamp, body: g.lastMessage.body }
      : null,
  }));
}

/** What the transport reported changed in the account's groups, written to its cache. */
export async function updateGroups(
  db: Db,
  account: OwnIds & { accountId: string },
  updates: Array<Partial<GroupInfo> & { id: string }>,
): Promise<void> {
  for (const u of updates) {
    await updateGroup(db, account.accountId, u.id, {
      ...(u.subject !== undefined ? { subject: u.subject } : {}),
      ...(u.announce !== undefined ? { announce: u.announce } : {}),
      ...(u.participants
        ? {
            participants: u.participants.map(toStoredParticipant),
            isAdmin: isAdminIn(account, u.participants),
          }
        : {}),
    });
  }
}

/** The least time between two full group fetches of an account on reconnects. */
export const GROUP_SYNC_MIN_INTERVAL_MS = 10 * 60_000;

/** One account's group sync: a full group fetch into the cache, then the invite codes of admin groups. */
export class GroupSync {
  private syncing = false;
  /** When the last full fetch succeeded. */
  private lastSync = 0;

  constructor(
    private readonly ctx: AppContext,
    private readonly account: SyncedAccount,
  ) {}

  /**
   * Runs a sync unless one is running. A connection that drops and opens again within
   * `GROUP_SYNC_MIN_INTERVAL_MS` does not fetch everything again (the events kept the cache);
   * `force` (the user asked for a refresh) always fetches.
   */
  async run(force = false): Promise<void> {
    const d = this.account;
    const { fetchGroups, inviteCode } = d.transport;
    // An account without groups (capabilities.groups) has nothing to sync.
    if (this.syncing || d.stopped || !fetchGroups || !inviteCode) return;
    if (!force && Date.now() - this.lastSync < GROUP_SYNC_MIN_INTERVAL_MS) return;
    this.syncing = true;
    const { db, nodeId } = this.ctx;
    try {
      const groups = await fetchGroups.call(d.transport);
      if (d.stopped) return;
      await upsertGroups(db, d.accountId, toCache(d, groups), { replaceAll: true });
      await updateOwnedAccount(db, nodeId, d.accountId, { groupsFetchedAt: new Date() });
      this.lastSync = Date.now();
      // Invite codes one at a time (the transport spaces them out).
      for (const g of await listGroups(db, d.accountId)) {
        if (d.stopped || !d.connected) return;
        if (!g.isAdmin || g.inviteCode) continue;
        try {
          await setInviteCode(db, d.accountId, g.groupId, await inviteCode.call(d.transport, g.groupId));
        } catch (err) {
          this.ctx.log.warn({ err, accountId: d.accountId, groupId: g.groupId }, 'invite code not available');
        }
      }
    } catch (err) {
      if (!d.stopped) this.ctx.log.warn({ err, accountId: d.accountId }, 'group fetch failed');
    } finally {
      this.syncing = false;
    }
  }
}
