import { z } from 'zod';
import { textList } from './text-list.ts';

/**
 * How many people a new group gets at once besides the account that makes it. Adding many
 * people to a group is what spam accounts do, and WhatsApp bans for it (docs/decisions.md, New
 * groups): a group starts as a person would make one by hand, and the others join by its link.
 */
export const GROUP_FIRST_MEMBERS = 5;
/** WhatsApp's longest group name. */
export const GROUP_SUBJECT_MAX = 100;

/** POST /api/session/:sessionId/groups: a new WhatsApp group made by a linked phone. */
export const CreateGroupBody = z.object({
  subject: z.string().max(1000),
  /** Phone numbers (any common form), the first GROUP_FIRST_MEMBERS of them added now. */
  members: textList(100_000, 200),
});
export type CreateGroupBody = z.infer<typeof CreateGroupBody>;

export const CreateGroupResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  groupId: z.string(),
  groupName: z.string(),
  /** Numbers (digits) WhatsApp added to the group. */
  added: z.array(z.string()),
  /** Numbers of the first batch WhatsApp did not add (their privacy settings, not on WhatsApp). */
  notAdded: z.array(z.string()),
  /** Numbers beyond the first batch: never added; they join by the group's invite link. */
  toInvite: z.array(z.string()),
  /** The group's invite link, when WhatsApp gave one. */
  inviteLink: z.string().nullable(),
});
export type CreateGroupResponse = z.infer<typeof CreateGroupResponse>;

export const GROUP_CREATE_TEXTS = {
  subjectRequired: 'Group name is required',
  subjectTooLong: `Group name can have at most ${GROUP_SUBJECT_MAX} characters`,
  membersRequired: 'Give at least one member: a number, or a contact list',
  linkedOnly: 'Groups can be made by linked WhatsApp accounts only',
  created: 'Group created',
} as const;
