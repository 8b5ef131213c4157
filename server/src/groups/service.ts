import type { GroupChat, GroupSummary } from '@wa/contract';
import { bareJid, chatIdOfPhone, phoneOfJid } from '@wa/contract';
import type { Db } from '../db/client.ts';
import type { StoredParticipant } from '../db/schema.ts';
import { type GroupRow, listGroups } from './repository.ts';

/** A refresh asks WhatsApp for every group at once; more often than this it is not asked again. */
export const GROUPS_REFRESH_MIN_GAP_MS = 60_000;

export const inviteLink = (code: string) => `https://chat.whatsapp.com/${code}`;

/** Digits of a phone JID; an `@lid` or other id is kept whole, since it is not a phone number. */
const phoneFromJid = (jid: string): string => phoneOfJid(jid) ?? jid;

/** The phone number of a participant when the account knows it, else its id. */
export const participantPhone = (p: StoredParticipant) => p.phoneNumber ?? phoneFromJid(p.id);

/** Maps any JID of a member (phone or LID) to its phone number when a participant entry knows it. */
function phoneResolver(participants: StoredParticipant[]): (jid: string | null) => string | null {
  const byId = new Map<string, string>();
  for (const p of participants) {
    const phone = participantPhone(p);
    byId.set(p.id, phone);
    if (p.lid) byId.set(p.lid, phone);
    if (p.phoneNumber) byId.set(chatIdOfPhone(p.phoneNumber), phone);
  }
  return (jid) => {
    if (!jid) return null;
    const bare = bareJid(jid) ?? jid;
    return byId.get(bare) ?? phoneFromJid(bare);
  };
}

/** Admins first (super admins before admins), as phone numbers. */
function adminPhones(participants: StoredParticipant[]): string[] {
  return participants
    .filter((p) => p.admin)
    .sort((a, b) => (a.admin === b.admin ? 0 : a.admin === 'superadmin' ? -1 : 1))
    .map(participantPhone);
}

const linkOf = (g: GroupRow) => (g.isAdmin && g.inviteCode ? inviteLink(g.inviteCode) : null);

export function presentGroupSummary(g: GroupRow): GroupSummary {
  const admins = adminPhones(g.participants);
  return {
    groupId: g.groupId,
    groupName: g.subject,
    admins,
    inviteLink: linkOf(g),
    participantCount: g.participants.length,
    adminCount: admins.length,
    creationDate: g.createdAt?.toISOString() ?? null,
    updatedDate: g.updatedAt.toISOString(),
  };
}

export function presentGroupChat(g: GroupRow): GroupChat {
  const admins = adminPhones(g.participants);
  const phoneOf = phoneResolver(g.participants);
  return {
    groupId: g.groupId,
    groupName: g.subject,
    adminPhone: admins,
    groupLink: linkOf(g),
    participantCount: g.participants.length,
    adminCount: admins.length,
    creationDate: g.createdAt?.toISOString() ?? null,
    updatedDate: g.updatedAt.toISOString(),
    owner: phoneOf(g.owner),
    participants: g.participants.map((p) => ({
      phoneNumber: participantPhone(p),
      isAdmin: p.admin !== null,
      isSuperAdmin: p.admin === 'superadmin',
    })),
    lastMessage: g.lastMessage
      ? {
          sender: phoneOf(g.lastMessage.sender) ?? g.lastMessage.sender,
          timestamp: Math.floor(g.lastMessage.timestamp),
          body: g.lastMessage.body,
        }
      : null,
  };
}

/**
 * The account whose groups are listed, as the caller found it: access is checked by the policy
 * and a refresh asked for by the caller (groups do not drive accounts).
 */
export type GroupsSource = { accountId: string; connected: boolean; groupsFetchedAt: Date | null };

async function cachedGroups(db: Db, source: GroupsSource) {
  const rows = await listGroups(db, source.accountId);
  const message =
    rows.length > 0
      ? `${rows.length} groups found`
      : source.connected
        ? source.groupsFetchedAt
          ? 'No groups found'
          : 'Groups are being loaded. Please try again in a moment.'
        : 'Session is not connected';
  return { rows, message };
}

export async function groupsList(db: Db, source: GroupsSource) {
  const { rows, message } = await cachedGroups(db, source);
  const groups = rows.map(presentGroupSummary);
  return { success: true as const, groups, message, count: groups.length };
}

export async function groupChats(db: Db, source: GroupsSource) {
  const { rows, message } = await cachedGroups(db, source);
  return { success: true as const, groups: rows.map(presentGroupChat), message };
}
