import { z } from 'zod';

// Channels (WhatsApp newsletters) an account owns or administers.

/** A channel's chat id: `<digits>@newsletter` (rc14 WABinary/jid-utils.js isJidNewsletter). */
export const CHANNEL_JID_SUFFIX = '@newsletter';
export const isChannelJid = (jid: string): boolean => jid.endsWith(CHANNEL_JID_SUFFIX);

/** The link WhatsApp shares a channel by. */
export const channelInviteLink = (code: string) => `https://whatsapp.com/channel/${code}`;

export const CHANNEL_TEXTS = {
  nameRequired: 'Channel name is required',
  nameTooLong: 'Channel name can have at most 100 characters',
  descriptionTooLong: 'Channel description can have at most 2048 characters',
  inviteInvalid: 'Give the channel link (https://whatsapp.com/channel/…) or its code',
  notAdmin: 'This account is not an admin of that channel',
  notFound: 'Channel not found',
  notConnected: 'Session is not connected',
  linkedOnly: 'Channels are available for linked WhatsApp accounts only',
  timeout: 'The account did not answer in time; try again',
  created: 'Channel created',
  added: 'Channel added',
  refreshed: 'Channels refreshed',
  none: 'No channels yet: create one, or add one this account administers by its link',
  notAChannel: (id: string) => `Not a channel of this account: ${id}`,
} as const;

export const ChannelRole = z.enum(['OWNER', 'ADMIN']);
export type ChannelRole = z.infer<typeof ChannelRole>;

export const Channel = z.object({
  channelId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  followers: z.number().int(),
  role: ChannelRole,
  inviteLink: z.string().nullable(),
  fetchedAt: z.string(),
});
export type Channel = z.infer<typeof Channel>;

export const ChannelsListResponse = z.object({
  success: z.literal(true),
  channels: z.array(Channel),
  message: z.string(),
  count: z.number().int(),
});
export type ChannelsListResponse = z.infer<typeof ChannelsListResponse>;

export const CreateChannelBody = z.object({
  name: z.string().trim().min(1, CHANNEL_TEXTS.nameRequired).max(100, CHANNEL_TEXTS.nameTooLong),
  description: z.string().trim().max(2048, CHANNEL_TEXTS.descriptionTooLong).nullish(),
});
export type CreateChannelBody = z.infer<typeof CreateChannelBody>;

export const AddChannelBody = z.object({
  invite: z.string().trim().min(1, CHANNEL_TEXTS.inviteInvalid).max(300),
});
export type AddChannelBody = z.infer<typeof AddChannelBody>;

export const ChannelResponse = z.object({ success: z.literal(true), message: z.string(), channel: Channel });
export type ChannelResponse = z.infer<typeof ChannelResponse>;

/** The invite code of a channel link (`https://whatsapp.com/channel/<code>`) or a bare code; null when neither. */
export function channelInviteCode(input: string): string | null {
  const s = input.trim();
  const m = /^(?:https?:\/\/)?(?:www\.)?whatsapp\.com\/channel\/([A-Za-z0-9_-]{6,64})\/?(?:[?#].*)?$/.exec(s);
  if (m) return m[1]!;
  return /^[A-Za-z0-9_-]{6,64}$/.test(s) ? s : null;
}
