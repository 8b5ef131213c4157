import {
  type CreateGroupResponse,
  chatIdOfPhone,
  GROUP_CREATE_TEXTS,
  GROUP_FIRST_MEMBERS,
  GROUP_SUBJECT_MAX,
  PHONE_TEXTS,
  phoneOrNull,
} from '@wa/contract';
import type { AppContext } from '../context.ts';
import { badRequest } from '../errors.ts';
import { groupsOf } from '../groups/repository.ts';
import { inviteLink, participantPhone } from '../groups/service.ts';
import { orderChannels } from './channel-orders.ts';
import type { AccountRow } from './repository.ts';

/**
 * A new group of a linked phone: its name, and its first members from typed numbers or a
 * contact list. Only the first GROUP_FIRST_MEMBERS numbers are added (adding many people is a
 * ban signal); the rest are named in the answer with the group's invite link, to join by it.
 */
export async function createGroup(
  ctx: AppContext,
  account: AccountRow,
  body: { subject: string; members: string[] },
): Promise<CreateGroupResponse> {
  const subject = body.subject.trim();
  if (!subject) throw badRequest(GROUP_CREATE_TEXTS.subjectRequired);
  if (subject.length > GROUP_SUBJECT_MAX) throw badRequest(GROUP_CREATE_TEXTS.subjectTooLong);
  const own = account.phoneNumber.replace(/\D/g, '');
  const numbers: string[] = [];
  for (const raw of body.members) {
    if (!raw.trim()) continue;
    const number = phoneOrNull(raw, ctx.config.defaultCountryCode);
    if (!number) throw badRequest(PHONE_TEXTS.invalid(raw.trim()));
    if (number !== own && !numbers.includes(number)) numbers.push(number);
  }
  if (numbers.length === 0) throw badRequest(GROUP_CREATE_TEXTS.membersRequired);
  const first = numbers.slice(0, GROUP_FIRST_MEMBERS);
  const done = await orderChannels(ctx, account, {
    kind: 'group',
    name: subject,
    members: first.map(chatIdOfPhone),
  });
  const [group] = done.channelId ? await groupsOf(ctx.db, account.accountId, [done.channelId]) : [];
  if (!group) throw badRequest(GROUP_CREATE_TEXTS.linkedOnly);
  const inGroup = new Set(group.participants.map(participantPhone));
  return {
    success: true,
    message: GROUP_CREATE_TEXTS.created,
    groupId: group.groupId,
    groupName: group.subject,
    added: first.filter((n) => inGroup.has(n)),
    notAdded: first.filter((n) => !inGroup.has(n)),
    toInvite: numbers.slice(GROUP_FIRST_MEMBERS),
    inviteLink: group.inviteCode ? inviteLink(group.inviteCode) : null,
  };
}
