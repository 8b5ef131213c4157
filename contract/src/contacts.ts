import { z } from 'zod';
import { ConsentGrant, PersonAddress } from './consent.ts';

// Contact lists and opt-outs, shapes as the issue gives them.

export const ContactListSummary = z.object({
  id: z.string(),
  name: z.string(),
  count: z.number(),
  optedOut: z.number(),
  fields: z.array(z.string()),
  createdAt: z.string(),
  /** Where its numbers' consent came from; null: none recorded. */
  consent: ConsentGrant.nullable().optional(),
});
export type ContactListSummary = z.infer<typeof ContactListSummary>;

export const ContactListsResponse = z.object({
  success: z.literal(true),
  lists: z.array(ContactListSummary),
});
export type ContactListsResponse = z.infer<typeof ContactListsResponse>;

export const ImportContactsResponse = z.object({
  success: z.literal(true),
  list: ContactListSummary,
  imported: z.number(),
  skipped: z.object({ invalid: z.number(), duplicates: z.number(), empty: z.number() }),
  phoneColumn: z.string(),
});
export type ImportContactsResponse = z.infer<typeof ImportContactsResponse>;

export const ContactsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  search: z.string().trim().max(200).optional(),
});
export type ContactsQuery = z.infer<typeof ContactsQuery>;

export const Contact = z.object({
  /** The contact's number, or the BSUID it is known by when it has none (docs/people.md). */
  phoneNumber: z.string(),
  /**
   * How a contact known by BSUID is shown: their number where WhatsApp showed one, else their
   * username, else a short form of the id (contract/jid.ts displayAddress). Absent for a number.
   */
  display: z.string().optional(),
  name: z.string(),
  fields: z.record(z.string(), z.string()),
  tags: z.array(z.string()),
  optedOut: z.boolean(),
});
export type Contact = z.infer<typeof Contact>;

export const ContactsResponse = z.object({
  success: z.literal(true),
  contacts: z.array(Contact),
  total: z.number(),
});
export type ContactsResponse = z.infer<typeof ContactsResponse>;

export const OptOutSource = z.enum(['reply', 'manual']);
export type OptOutSource = z.infer<typeof OptOutSource>;

export const OptOut = z.object({
  /** The person's phone number where known, else how their address is shown (contract/jid.ts displayAddress). */
  phoneNumber: z.string(),
  /** The address the opt-out came from (a STOP from a LID or a BSUID, when WhatsApp hid the number). */
  address: PersonAddress.optional(),
  source: OptOutSource,
  createdAt: z.string(),
  /** For a reply: the opt-out word it matched, its language and the message as received. */
  keyword: z.string().nullable().optional(),
  language: z.string().nullable().optional(),
  message: z.string().nullable().optional(),
});
export type OptOut = z.infer<typeof OptOut>;

export const OptOutsResponse = z.object({ success: z.literal(true), optOuts: z.array(OptOut) });
export type OptOutsResponse = z.infer<typeof OptOutsResponse>;

export const AddOptOutsBody = z.object({
  phoneNumbers: z
    .array(z.string().max(64), { error: 'phoneNumbers must be a list of numbers' })
    .min(1, 'phoneNumbers must not be empty')
    .max(100_000, 'At most 100,000 numbers at once'),
});
export type AddOptOutsBody = z.infer<typeof AddOptOutsBody>;

export const PhoneNumberParams = z.object({ phoneNumber: z.string().max(64) });

/** 'Save members as a contact list' of the Group List's detail panel. */
export const GroupMembersListBody = z.object({
  sessionId: z.string().max(200),
  groupId: z.string().max(200),
  /** The list's name; the group's name when left out. */
  name: z.string().trim().max(200).optional(),
  /** What the members agreed to receive, kept with the group as the source of consent. */
  purpose: z.string().trim().max(200, 'Purpose is too long (max 200 characters)').optional(),
});
export type GroupMembersListBody = z.infer<typeof GroupMembersListBody>;

export const GroupMembersListResponse = z.object({
  success: z.literal(true),
  list: ContactListSummary,
  imported: z.number(),
  /** Members whose phone number the account does not know (a hidden `@lid` id), or not valid. */
  skipped: z.number(),
});
export type GroupMembersListResponse = z.infer<typeof GroupMembersListResponse>;

/**
 * Field keys whose column holds a contact's tags, not a field: `tags`, and `labels` as Google
 * Contacts exports them (`* myContacts ::: Friends`, or `Group Membership` in older exports).
 */
export const TAG_FIELD_KEYS: readonly string[] = ['tags', 'labels', 'group_membership'];
const MAX_TAGS = 20;
const MAX_TAG_LENGTH = 50;

/**
 * A tags cell as tags: split on `:::` (Google Contacts), `,` or `;`, trimmed, Google's `* `
 * mark of system labels dropped with its `myContacts` / `starred` label, duplicates merged;
 * at most 20 tags of 50 characters.
 */
export function tagsOfCell(cell: string): string[] {
  const tags = new Set<string>();
  for (const part of cell.split(/:::|[,;]/)) {
    const system = part.trim().startsWith('*');
    const tag = part
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are dropped
      .replace(/[\u0000-\u001f]/g, '')
      .trim()
      .replace(/^\*\s*/, '')
      .slice(0, MAX_TAG_LENGTH)
      .trim();
    if (tag === '' || (system && /^(mycontacts|starred)$/i.test(tag))) continue;
    tags.add(tag);
    if (tags.size === MAX_TAGS) break;
  }
  return [...tags];
}
