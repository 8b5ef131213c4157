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

export const channelKeys = { list: (sessionId: string | null) => ['channels', sessionId] as const };

const base = (sessionId: string) => `/api/session/${encodeURIComponent(sessionId)}`;

/** GET /api/session/{sessionId}/channels: the channels the account owns or administers. */
export const channelsQuery = (sessionId: string | null) =>
  queryOptions({
    queryKey: channelKeys.list(sessionId),
    queryFn: () => apiFetch<ChannelsListResponse>(`${base(sessionId!)}/channels`),
    enabled: !!sessionId,
  });
export const useChannels = (sessionId: string | null) => useQuery(channelsQuery(sessionId));

/** POST …/channels (create), …/channels/add (by link), …/channels/refresh. */
export const useCreateChannel = (sessionId: string) =>
  useApiMutation(
    (body: CreateChannelBody) =>
      apiFetch<ChannelResponse>(`${base(sessionId)}/channels`, { method: 'POST', body }),
    [channelKeys.list(sessionId)],
  );
export const useAddChannel = (sessionId: string) =>
  useApiMutation(
    (body: AddChannelBody) =>
      apiFetch<ChannelResponse>(`${base(sessionId)}/channels/add`, { method: 'POST', body }),
    [channelKeys.list(sessionId)],
  );
export const useRefreshChannels = (sessionId: string) =>
  useApiMutation(
    () => apiFetch<ChannelsListResponse>(`${base(sessionId)}/channels/refresh`, { method: 'POST' }),
    [channelKeys.list(sessionId)],
  );

/** A post is a group send of one channel: POST …/sendBulkMessage with the channel's id (one credit). */
export type ChannelPost =
  | { type: 'string'; content: string }
  | { type: 'media'; data: string; mime: string; fileName: string; content: string }
  | {
      type: 'poll';
      content: { pollName: string; pollOptions: string[]; options: { allowMultipleAnswers: boolean } };
    };
export const usePostToChannel = (sessionId: string) =>
  useApiMutation(
    (vars: { channelId: string; post: ChannelPost; scheduleTime: string | null }) =>
      apiFetch<SendResponse>(`${base(sessionId)}/sendBulkMessage`, {
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
