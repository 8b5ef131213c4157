import crypto from 'node:crypto';
import { chatIdOfLid, chatIdOfPhone, GROUP_JID_SUFFIX } from '@wa/contract';
import type { GroupInfo, GroupParticipantInfo } from '../types.ts';

/**
 * The simulated network's fixed facts, derived from the account id alone so that every node,
 * every restart and every test sees the same groups for the same account.
 */

/** A seeded generator (mulberry32): the same seed gives the same sequence. */
export function seededRandom(seed: string): () => number {
  let a = crypto.createHash('sha256').update(seed).digest().readUInt32LE(0);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` decimal digits derived from a string. */
export function digitsOf(seed: string, n: number): string {
  const hex = crypto.createHash('sha256').update(seed).digest('hex');
  return BigInt(`0x${hex}`).toString().slice(0, n).padStart(n, '0');
}

export const simulatedOwnJid = chatIdOfPhone;
export const simulatedOwnLid = (accountId: string) => chatIdOfLid(digitsOf(`lid:${accountId}`, 15));

/** Names that prove escaping (HTML and CSV formula injection) wherever groups are shown or exported. */
export const TRICKY_NAME_MARKUP = `<b>Bold</b> & "Quoted" Friends' Club`;
export const TRICKY_NAME_FORMULA = '=HYPERLINK("http://example.com","Click")';
export const ANNOUNCE_ONLY_NAME = 'Announcements (admins only)';

const WORDS = [
  'Family',
  'Cricket',
  'Office',
  'Neighbours',
  'College',
  'Travel',
  'Book Club',
  'Yoga',
  'Alumni',
  'Market',
  'Volunteers',
  'Parents',
  'Startup',
  'Music',
  'Garden',
  'Chess',
];
const BODIES = [
  'Good morning everyone',
  'Meeting moved to 5 pm',
  'Thanks for the update!',
  'Photos from yesterday are in the drive',
  'Who is coming on Sunday?',
  'Happy birthday 🎉',
  'Please check the new schedule',
];

/** Reference point for simulated dates: fixed, so the data does not drift between runs. */
const EPOCH_S = Date.UTC(2025, 0, 1) / 1000;

export type SimulatedGroup = GroupInfo & { ownRole: 'superadmin' | 'admin' | null };

/**
 * The groups of a simulated account. Index 0 is owned by the account (super admin, 256
 * members), 1 is announce-only where the account is a member, 2 and 3 carry the tricky names,
 * 4 has a last message without text, the last group has 2 members; the rest get seeded roles.
 */
export function simulatedGroups(accountId: string, ownPhone: string, count: number): SimulatedGroup[] {
  const rand = seededRandom(`groups:${accountId}`);
  const ownJid = simulatedOwnJid(ownPhone);
  const ownLid = simulatedOwnLid(accountId);
  const groups: SimulatedGroup[] = [];
  for (let i = 0; i < count; i++) {
    const id = `120363${digitsOf(`${accountId}:${i}`, 12)}${GROUP_JID_SUFFIX}`;
    let ownRole: SimulatedGroup['ownRole'];
    if (i === 0) ownRole = 'superadmin';
    else if (i === 1) ownRole = null;
    else ownRole = (['superadmin', 'admin', null] as const)[i % 3]!;
    let subject = `${WORDS[Math.floor(rand() * WORDS.length)]} ${i + 1}`;
    if (i === 1) subject = ANNOUNCE_ONLY_NAME;
    if (i === 2) subject = TRICKY_NAME_MARKUP;
    if (i === 3) subject = TRICKY_NAME_FORMULA;
    let size = 3 + Math.floor(rand() * 253);
    if (i === 0) size = 256;
    if (i === count - 1 && count > 1) size = 2;

    const participants: GroupParticipantInfo[] = [];
    // Half of the own entries appear by LID, as WhatsApp increasingly sends them.
    participants.push(
      i % 2 === 0
        ? { id: ownJid, phoneNumber: ownPhone, lid: ownLid, admin: ownRole }
        : { id: ownLid, phoneNumber: ownPhone, lid: ownLid, admin: ownRole },
    );
    for (let p = 1; p < size; p++) {
      const phone = `91${digitsOf(`${accountId}:${i}:${p}`, 10).replace(/^0/, '9')}`;
      const lid = chatIdOfLid(digitsOf(`lid:${accountId}:${i}:${p}`, 15));
      // The group's creator (when not us) is the first other member, a super admin; a few admins besides.
      const admin: GroupParticipantInfo['admin'] =
        p === 1 && ownRole !== 'superadmin' ? 'superadmin' : rand() < 0.08 ? 'admin' : null;
      participants.push(
        p % 2 === 0
          ? { id: lid, phoneNumber: phone, lid, admin }
          : { id: chatIdOfPhone(phone), phoneNumber: phone, lid, admin },
      );
    }
    const owner = ownRole === 'superadmin' ? ownJid : (participants[1]?.id ?? null);
    const creation = EPOCH_S - Math.floor((30 + rand() * 1500) * 86400);
    const sender = participants[Math.min(participants.length - 1, 1 + Math.floor(rand() * (size - 1)))]!;
    const body = i === 4 ? null : BODIES[Math.floor(rand() * BODIES.length)]!;
    groups.push({
      id,
      subject,
      owner,
      creation,
      announce: i === 1,
      participants,
      ownRole,
      lastMessage: {
        chatId: id,
        sender: sender.phoneNumber ?? sender.id,
        timestamp: EPOCH_S + Math.floor(rand() * 86400 * 30),
        body,
      },
    });
  }
  return groups;
}

/** A pairing string shaped like WhatsApp's (ref, then three keys), random each time. */
export function randomPairingString(): string {
  const b64 = (n: number) => crypto.randomBytes(n).toString('base64');
  return `2@${b64(48)},${b64(32)},${b64(32)},${b64(16)}`;
}

/** Half of the chats read messages, decided by the chat id so that it is stable. */
export const readsMessages = (chatId: string) =>
  crypto.createHash('sha256').update(chatId).digest().readUInt8(0) % 2 === 0;
