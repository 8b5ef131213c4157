import type { GroupChat } from '@wa/contract';
import { describe, expect, it } from 'vitest';
import { buildGroup } from '../../testing/factories.ts';
import { filterGroups, groupExportRows, searchTooShort, sortedParticipants } from './group-rows.ts';

const group = (over: Partial<GroupChat>): GroupChat => buildGroup(over);

describe('filterGroups', () => {
  const groups = [
    group({ groupName: 'Cricket Club' }),
    group({ groupName: 'Office' }),
    group({ groupName: 'CRICKET fans' }),
  ];

  it('matches group names case-insensitively from 3 characters', () => {
    expect(filterGroups(groups, 'cri').map((g) => g.groupName)).toEqual(['Cricket Club', 'CRICKET fans']);
    expect(filterGroups(groups, 'OFF').map((g) => g.groupName)).toEqual(['Office']);
    expect(filterGroups(groups, 'zzz')).toEqual([]);
  });

  it('does not filter with fewer than 3 characters, and hints for 1 or 2', () => {
    expect(filterGroups(groups, 'cr')).toBe(groups);
    expect(searchTooShort('')).toBe(false);
    expect(searchTooShort('c')).toBe(true);
    expect(searchTooShort('cr')).toBe(true);
    expect(searchTooShort('cri')).toBe(false);
  });
});

describe('sortedParticipants', () => {
  it('names the roles and lists super admins, then admins, then members', () => {
    const list = sortedParticipants([
      { phoneNumber: '1', isAdmin: false, isSuperAdmin: false },
      { phoneNumber: '2', isAdmin: true, isSuperAdmin: false },
      { phoneNumber: '3', isAdmin: true, isSuperAdmin: true },
      { phoneNumber: '4', isAdmin: false, isSuperAdmin: false },
    ]);
    expect(list.map((p) => [p.phoneNumber, p.role])).toEqual([
      ['3', 'Super Admin'],
      ['2', 'Admin'],
      ['1', 'Member'],
      ['4', 'Member'],
    ]);
  });
});

describe('groupExportRows', () => {
  it('gives the spec columns with the fixed User and Status', () => {
    const rows = groupExportRows([
      group({ adminPhone: ['911', '922'] }),
      group({ groupName: '=1+1', groupLink: null, adminPhone: [], creationDate: null }),
    ]);
    expect(rows[0]).toEqual([
      1,
      'SUPER ADMIN',
      'Family 1',
      '911, 922',
      'https://chat.whatsapp.com/abc',
      10,
      1,
      'Active',
      '05-01-2026 09:07 AM',
      '20-11-2026 09:30 PM',
    ]);
    expect(rows[1]!.slice(0, 5)).toEqual([2, 'SUPER ADMIN', '=1+1', 'N/A', 'Not An Admin']);
    expect(rows[1]![8]).toBe('N/A');
  });
});
