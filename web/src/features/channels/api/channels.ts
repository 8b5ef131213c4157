import { queryOptions, useQuery } from '@tanstack/react-query';
import type {
  AddChannelBody,
  ChannelResponse,
  ChannelsListResponse,
  CreateChannelBody,
  SendResponse,
} from '@wa/contract';
import { apiFetch } from '../../../lib/api.ts';
import { useApiMutation } from '../../../lib/mutation.ts';
import { userDetailsKeys } from '../../auth/api/get-user-details.ts';
import { messageJobKeys } from '../../jobs/api/keys.ts';

export const channelKeys = { list: (accountId: string | null) => ['channels', accountId] as const };

const base = (accountId: string) => `/api/session/${encodeURIComponent(accountId)}`;

/** GET /api/session/{sessionId}/channels: the channels the account owns or administers. */
export const channelsQuery = (accountId: string | null) =>
  queryOptions({
    queryKey: channelKeys.list(accountId),
    queryFn: () => apiFetch<ChannelsListResponse>(`${base(accountId!)}/channels`),
    enabled: !!accountId,
  });
export const useChannels = (accountId: string | null) => useQuery(channelsQuery(accountId));

/** POST …/channels (create), …/channels/add (by link), …/channels/refresh. */
export const useCreateChannel = (accountId: string) =>
  useApiMutation(
    (body: CreateChannelBody) =>
      apiFetch<ChannelResponse>(`${base(accountId)}/channels`, { method: 'POST', body }),
    [channelKeys.list(accountId)],
  );
export const useAddChannel = (accountId: string) =>
  useApiMutation(
    (body: AddChannelBody) =>
      apiFetch<ChannelResponse>(`${base(accountId)}/channels/add`, { method: 'POST', body }),
    [channelKeys.list(accountId)],
  );
export const useRefreshChannels = (accountId: string) =>
  useApiMutation(
    () => apiFetch<ChannelsListResponse>(`${base(accountId)}/channels/refresh`, { method: 'POST' }),
    [channelKeys.list(accountId)],
  );

/** A post is a group send of one channel: POST …/sendBulkMessage with the channel's id (one credit). */
export type ChannelPost =
  | { type: 'string'; content: string }
  | { type: 'media'; data: string; mime: string; fileName: string; content: string }
  | {
      type: 'poll';
      content: { pollName: string; pollOptions: string[]; options: { allowMultipleAnswers: boolean } };
    };
export const usePostToChannel = (accountId: string) =>
  useApiMutation(
    (vars: { channelId: string; post: ChannelPost; scheduleTime: string | null }) =>
      apiFetch<SendResponse>(`${base(accountId)}/sendBulkMessage`, {
        method: 'POST',
        body: {
          chatIds: [vars.channelId],
          ...vars.post,
          ...(vars.scheduleTime ? { scheduleTime: vars.scheduleTime } : {}),
        },
      }),
    // The post is a job, and it took a credit.
    [messageJobKeys.all, userDetailsKeys.all],
  );
