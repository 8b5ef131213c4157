/**
 * WhatsApp's chat ids (JIDs), `<user>[:<device>]@<server>`, read the same way by the server, the
 * transports and the web app. A person is addressed by phone (`<digits>@s.whatsapp.net`, the
 * engine's form of an individual recipient; `@c.us` is the older spelling) or by a hidden id
 * (`<digits>@lid`, whose digits are no phone number); a group is `<id>@g.us`.
 */

export const PHONE_JID_SUFFIX = '@s.whatsapp.net';
export const GROUP_JID_SUFFIX = '@g.us';
export const LID_JID_SUFFIX = '@lid';
/** The older spelling of a phone JID, still met in participants' ids. */
const LEGACY_PHONE_JID_SUFFIX = '@c.us';

/** The chat id of a phone number given as digits with its country code: `919800015838@s.whatsapp.net`. */
export const chatIdOfPhone = (digits: string): string => `${digits}${PHONE_JID_SUFFIX}`;

export const isGroupJid = (jid: string): boolean => jid.endsWith(GROUP_JID_SUFFIX);
export const isPhoneJid = (jid: string): boolean => jid.endsWith(PHONE_JID_SUFFIX);
export const isLidJid = (jid: string): boolean => jid.endsWith(LID_JID_SUFFIX);

/** The user part of a JID without its device (`9198…:12@s.whatsapp.net` → `9198…`); a text without `@` as it is, less its device. */
export function jidUser(jid: string): string {
  const at = jid.indexOf('@');
  const user = at === -1 ? jid : jid.slice(0, at);
  const colon = user.indexOf(':');
  return colon === -1 ? user : user.slice(0, colon);
}

/** The phone number (digits) of a phone JID, device dropped; null for a LID, a group or no JID. */
export function phoneOfJid(jid: string | null | undefined): string | null {
  if (!jid) return null;
  return isPhoneJid(jid) || jid.endsWith(LEGACY_PHONE_JID_SUFFIX) ? jidUser(jid) : null;
}

/** `user@server` without the device part, for comparing JIDs; null when it is not `user@server`. */
export function bareJid(jid: string | null | undefined): string | null {
  if (!jid) return null;
  const at = jid.indexOf('@');
  if (at <= 0 || at === jid.length - 1) return null;
  return `${jidUser(jid)}${jid.slice(at)}`;
}

/** A LIKE pattern that matches the JIDs of a kind, for SQL over stored chat ids (`chat_id LIKE …`). */
export const JID_LIKE = {
  phone: `%${PHONE_JID_SUFFIX}`,
  group: `%${GROUP_JID_SUFFIX}`,
} as const;
