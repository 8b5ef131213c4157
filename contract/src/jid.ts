import { CHANNEL_JID_SUFFIX } from './channels.ts';

/**
 * The address vocabulary: how a person (or a group) is named on WhatsApp, read and written the
 * same way by the server, the transports and the web app. Nothing outside this file and
 * `server/src/db/vocabulary-sql.ts` builds or parses a chat id.
 *
 * WhatsApp's chat ids (JIDs) are `<user>[:<device>]@<server>`. A person is addressed by phone
 * (`<digits>@s.whatsapp.net`, the engine's form of an individual recipient; `@c.us` is the older
 * spelling), by a LID (`<digits>@lid`, whose digits are no phone number: what a linked phone sees
 * of most contacts), or, on a Cloud API number, by a business-scoped user id (BSUID, `IN.1349…`,
 * a country code, a dot and letters or digits; with `parent_user_id` a parent BSUID of the same
 * form), which is its own chat id. A username names a person but cannot be written to. A group is
 * `<id>@g.us`.
 */

export const GROUP_JID_SUFFIX = '@g.us';
const PHONE_JID_SUFFIX = '@s.whatsapp.net';
const LID_JID_SUFFIX = '@lid';
/** The older spelling of a phone JID, still met in participants' ids. */
const LEGACY_PHONE_JID_SUFFIX = '@c.us';

/** The kinds of address a person has (docs/people.md). */
export const ADDRESS_KINDS = ['phone', 'lid', 'bsuid', 'username'] as const;
export type AddressKind = (typeof ADDRESS_KINDS)[number];
/** One address of a person: phone digits with the country code, a LID's digits, a BSUID, a username. */
export type Address = { kind: AddressKind; value: string };

/** The chat id of a phone number given as digits with its country code: `919800015838@s.whatsapp.net`. */
export const chatIdOfPhone = (digits: string): string => `${digits}${PHONE_JID_SUFFIX}`;
/** The chat id of a LID given as its digits: `12345678901234@lid`. */
export const chatIdOfLid = (user: string): string => `${user}${LID_JID_SUFFIX}`;

export const isGroupJid = (jid: string): boolean => jid.endsWith(GROUP_JID_SUFFIX);
export const isPhoneJid = (jid: string): boolean => jid.endsWith(PHONE_JID_SUFFIX);
const PLAIN_PHONE_CHAT_ID = /^[0-9]{6,15}@s\.whatsapp\.net$/;
/** A phone chat id of 6–15 digits with no device, exactly as `chatIdOfPhone` writes one. */
export const isPlainPhoneChatId = (text: string): boolean => PLAIN_PHONE_CHAT_ID.test(text);
export const isLidJid = (jid: string): boolean => jid.endsWith(LID_JID_SUFFIX);

const ERASED_SUFFIX = '@erased';
/** What an erased recipient's chat id becomes: the erasure's token, in a form no address has. */
export const chatIdOfErasure = (token: string): string => `${token}${ERASED_SUFFIX}`;
export const isErasedChatId = (chatId: string): boolean => chatId.endsWith(ERASED_SUFFIX);

/** A business-scoped user id (Meta's "Business-scoped user IDs": `US.13491208655302741918`), as a regular expression's source (JavaScript and SQL). */
export const BSUID_PATTERN = '^[A-Z]{2}\\.[A-Za-z0-9]{1,128}$';
const BSUID = new RegExp(BSUID_PATTERN);
export const isBsuid = (text: string): boolean => BSUID.test(text);

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

/** The person's address a chat id names (a phone JID, a LID, a BSUID); null for a group or anything else. */
export function addressOfChatId(chatId: string | null | undefined): Address | null {
  if (!chatId) return null;
  const phone = phoneOfJid(chatId);
  if (phone) return { kind: 'phone', value: phone };
  if (isLidJid(chatId)) return { kind: 'lid', value: jidUser(chatId) };
  if (isBsuid(chatId)) return { kind: 'bsuid', value: chatId };
  return null;
}

/** The chat id that writes to an address; null for a username (WhatsApp takes none to write to). */
export function chatIdOfAddress(address: Address): string | null {
  switch (address.kind) {
    case 'phone':
      return chatIdOfPhone(address.value);
    case 'lid':
      return chatIdOfLid(address.value);
    case 'bsuid':
      return address.value;
    default:
      return null;
  }
}

/** An id shortened for a table cell: its first and last characters (`IN.134…1918`, `LID 1203…4567`). */
function shortId(id: string): string {
  return id.length <= 10 ? id : `${id.slice(0, 6)}…${id.slice(-4)}`;
}

/**
 * How a person is shown (jobs, reports, contacts): the phone number where known, else the
 * username, else a short form of the id; never a raw `@lid`. A group's or another chat id is
 * shown as it is.
 */
export function displayAddress(
  chatId: string,
  known: { phone?: string | null; username?: string | null } = {},
): string {
  if (known.phone) return known.phone;
  const address = addressOfChatId(chatId);
  if (address?.kind === 'phone') return address.value;
  if (known.username) return `@${known.username}`;
  if (address?.kind === 'lid') return `LID ${shortId(address.value)}`;
  if (address?.kind === 'bsuid') return shortId(address.value);
  return chatId;
}

/** What a chat id appends to an address of a kind (a BSUID is its own chat id); used by vocabulary-sql.ts only. */
export const CHAT_ID_SUFFIX = { phone: PHONE_JID_SUFFIX, lid: LID_JID_SUFFIX, bsuid: '' } as const;

/** A LIKE pattern that matches the JIDs of a kind, for SQL over stored chat ids (`chat_id LIKE …`); used by vocabulary-sql.ts only. */
export const JID_LIKE = {
  phone: `%${PHONE_JID_SUFFIX}`,
  lid: `%${LID_JID_SUFFIX}`,
  group: `%${GROUP_JID_SUFFIX}`,
  channel: `%${CHANNEL_JID_SUFFIX}`,
} as const;
