import { CHANNEL_TEXTS, type Channel, channelInviteLink } from '@wa/contract';
import type { Db } from '../db/client.ts';
import { type ChannelRow, listChannels } from './repository.ts';

export function presentChannel(c: ChannelRow): Channel {
  return {
    channelId: c.channelId,
    name: c.name,
    description: c.description,
    followers: c.followers,
    role: c.role,
    inviteLink: c.invite ? channelInviteLink(c.invite) : null,
    fetchedAt: c.fetchedAt.toISOString(),
  };
}

/** The account's channels as the Channels page and the Group Messaging picker read them. */
export async function channelsList(db: Db, accountId: string) {
  const channels = (await listChannels(db, accountId)).map(presentChannel);
  const n = channels.length;
  const message = n > 0 ? `${n} ${n === 1 ? 'channel' : 'channels'} found` : CHANNEL_TEXTS.none;
  return { success: true as const, channels, message, count: channels.length };
}
