import { chatIdOfPhone, isLidJid, phoneOfJid } from '@wa/contract';
import {
  type GroupMetadata,
  type GroupParticipant,
  normalizeMessageContent,
  type ParticipantAction,
  type proto,
  WAMessageAddressingMode,
} from 'baileys';
import type { CachedGroup, GroupInfo, GroupParticipantInfo, IncomingLastMessage } from '../types.ts';

/** Baileys <-> the transport's domain types. No socket, no state. */

/** WhatsApp's code of a closed connection (Boom's `output.statusCode`). */
export function statusCodeOf(error: unknown): number | undefined {
  const e = error as { output?: { statusCode?: number }; data?: unknown } | undefined;
  return e?.output?.statusCode;
}

/** An error in words, with its network cause when it has one. */
export function messageOf(error: unknown): string {
  if (!error) return 'unknown error';
  const e = error as { message?: string; cause?: { message?: string; code?: string }; code?: string };
  const inner = e.cause?.code ?? e.cause?.message ?? e.code;
  const msg = e.message ?? String(error);
  return inner && !msg.includes(inner) ? `${msg} (${inner})` : msg;
}

/** The text of a message, or null for media without caption and other kinds. */
export function messageBody(message: proto.IMessage | null | undefined): string | null {
  // Unwraps ephemeral, view-once and captioned-document wrappers (Utils/messages.js).
  const m = normalizeMessageContent(message);
  if (!m) return null;
  return (
    m.conversation ??
    m.extendedTextMessage?.text ??
    m.imageMessage?.caption ??
    m.videoMessage?.caption ??
    m.documentMessage?.caption ??
    m.pollCreationMessage?.name ??
    m.pollCreationMessageV3?.name ??
    null
  );
}

/** The phone number of a phone JID (contract/jid.ts); the name the Baileys mapping has used. */
export const digitsOfJid = phoneOfJid;

export function toParticipant(p: GroupParticipant): GroupParticipantInfo {
  const lid = p.lid ?? (isLidJid(p.id) ? p.id : null);
  return {
    id: p.id,
    phoneNumber: digitsOfJid(p.phoneNumber) ?? digitsOfJid(p.id),
    lid,
    admin: p.admin === 'admin' || p.admin === 'superadmin' ? p.admin : null,
  };
}

export function toGroupInfo(meta: GroupMetadata, lastMessage?: IncomingLastMessage | null): GroupInfo {
  return {
    id: meta.id,
    subject: meta.subject ?? '',
    owner: meta.ownerPn ?? meta.owner ?? null,
    creation: meta.creation ?? null,
    announce: !!meta.announce,
    ...(meta.addressingMode ? { addressingMode: meta.addressingMode === 'pn' ? 'pn' : 'lid' } : {}),
    ...(meta.ephemeralDuration ? { ephemeralDuration: meta.ephemeralDuration } : {}),
    participants: (meta.participants ?? []).map(toParticipant),
    lastMessage: lastMessage ?? null,
  };
}

/** The same member under its JID, LID or phone number. */
const sameMember = (a: GroupParticipantInfo, b: GroupParticipantInfo) =>
  a.id === b.id ||
  (a.lid !== null && a.lid === b.lid) ||
  (a.phoneNumber !== null && a.phoneNumber === b.phoneNumber);

/** A group-participants.update applied to the members we know (Types/Events: the event carries only the change). */
export function applyParticipantChange(
  members: GroupParticipantInfo[],
  action: ParticipantAction,
  changed: GroupParticipantInfo[],
): GroupParticipantInfo[] {
  const others = members.filter((m) => !changed.some((c) => sameMember(m, c)));
  switch (action) {
    case 'remove':
      return others;
    case 'add':
      return [...others, ...changed];
    case 'promote':
    case 'demote':
      return members.map((m) =>
        changed.some((c) => sameMember(m, c)) ? { ...m, admin: action === 'promote' ? 'admin' : null } : m,
      );
    default:
      return members.map((m) => changed.find((c) => sameMember(m, c)) ?? m);
  }
}

/**
 * Back to Baileys' shape, for `cachedGroupMetadata` from the account's cache; undefined when
 * the addressing mode is not known, so that Baileys queries the group rather than assume 'lid'.
 */
export function toGroupMetadata(group: CachedGroup): GroupMetadata | undefined {
  if (!group.addressingMode) return undefined;
  return {
    id: group.id,
    subject: group.subject,
    owner: group.owner ?? undefined,
    creation: group.creation ?? undefined,
    announce: group.announce,
    addressingMode: group.addressingMode === 'pn' ? WAMessageAddressingMode.PN : WAMessageAddressingMode.LID,
    ...(group.ephemeralDuration ? { ephemeralDuration: group.ephemeralDuration } : {}),
    participants: group.participants.map((p) => ({
      id: p.id,
      lid: p.lid ?? undefined,
      phoneNumber: p.phoneNumber ? chatIdOfPhone(p.phoneNumber) : undefined,
      admin: p.admin,
    })),
  };
}
