import type { GroupChat, GroupParticipant } from '@wa/contract';
import type { Cell } from '../../lib/export.ts';
import { formatGroupDate } from '../../lib/format.ts';

/** The search applies from 3 characters. */
export const SEARCH_MIN_LENGTH = 3;

export const NOT_AN_ADMIN = 'Not An Admin';
/** Shown where the call gave no value (placeholder defaults). */
export const NOT_AVAILABLE = 'N/A';

/** Case-insensitive substring match on the group name, only from 3 characters. */
export function filterGroups(groups: readonly GroupChat[], search: string): readonly GroupChat[] {
  const needle = search.trim().toLowerCase();
  if (needle.length < SEARCH_MIN_LENGTH) return groups;
  return groups.filter((g) => g.groupName.toLowerCase().includes(needle));
}

/** 1 or 2 characters typed: the search is not applied yet and the page says so. */
export const searchTooShort = (search: string) => {
  const n = search.trim().length;
  return n > 0 && n < SEARCH_MIN_LENGTH;
};

export type Role = 'Super Admin' | 'Admin' | 'Member';

export const roleOf = (p: GroupParticipant): Role =>
  p.isSuperAdmin ? 'Super Admin' : p.isAdmin ? 'Admin' : 'Member';

const ROLE_RANK: Record<Role, number> = { 'Super Admin': 0, Admin: 1, Member: 2 };

/** Super admins first, then admins, then members; the call's order within each. */
export const sortedParticipants = (participants: readonly GroupParticipant[]) =>
  participants
    .map((p, i) => ({ p, i, role: roleOf(p) }))
    .sort((a, b) => ROLE_RANK[a.role] - ROLE_RANK[b.role] || a.i - b.i)
    .map(({ p, role }) => ({ ...p, role }));

export const groupDate = (iso: string | null) => formatGroupDate(iso) || NOT_AVAILABLE;

/** The groups CSV file, named with the service and 'groups'. */
export const GROUPS_CSV_FILE = 'WhatsApp_groups.csv';

export const GROUPS_EXPORT_HEADERS = [
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
] as const;

/** One line per group, as the CSV file and the print view show it (User and Status are fixed). */
export function groupExportRows(groups: readonly GroupChat[]): Cell[][] {
  return groups.map((g, i) => [
    i + 1,
    'SUPER ADMIN',
    g.groupName,
    g.adminPhone.length > 0 ? g.adminPhone.join(', ') : NOT_AVAILABLE,
    g.groupLink ?? NOT_AN_ADMIN,
    g.participantCount,
    g.adminCount,
    'Active',
    groupDate(g.creationDate),
    groupDate(g.updatedDate),
  ]);
}
