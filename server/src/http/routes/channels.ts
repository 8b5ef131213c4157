import {
  AccountIdParams,
  AddChannelBody,
  CHANNEL_TEXTS,
  ChannelResponse,
  ChannelsListResponse,
  CreateChannelBody,
  channelInviteCode,
  ErrorResponse,
} from '@wa/contract';
import { type ChannelOrder, orderChannels } from '../../accounts/channel-orders.ts';
import { capabilitiesOf } from '../../accounts/providers.ts';
import { recordAudit } from '../../audit/record.ts';
import { findChannel } from '../../channels/repository.ts';
import { channelsList, presentChannel } from '../../channels/service.ts';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../errors.ts';
import { authorizeAccount } from '../../policy/access.ts';
import type { UserRow } from '../../users/repository.ts';
import { type App, requireUser } from '../types.ts';

const errors = {
  400: ErrorResponse,
  401: ErrorResponse,
  404: ErrorResponse,
  409: ErrorResponse,
  503: ErrorResponse,
};

/** The account whose channels these are (the owner's only); a Cloud API number has none. */
async function channelAccount(ctx: AppContext, user: UserRow, accountId: string) {
  const account = await authorizeAccount(ctx.db, user, 'act', accountId);
  if (!capabilitiesOf(ctx.config, account.kind).channels) throw badRequest(CHANNEL_TEXTS.linkedOnly);
  return account;
}

/** The channel an order created or added, as stored by the node that did it. */
async function orderedChannel(ctx: AppContext, user: UserRow, accountId: string, order: ChannelOrder) {
  const account = await channelAccount(ctx, user, accountId);
  const done = await orderChannels(ctx, account, order);
  const row = done.channelId ? await findChannel(ctx.db, accountId, done.channelId) : undefined;
  if (!row) throw badRequest(CHANNEL_TEXTS.notFound);
  return row;
}

/**
 * Channels (newsletters) of an account: listed from what the account learned (rc14 has
 * no call that lists them), created, added by link, refreshed. Posts are sends: a channel id goes
 * with group ids to `sendBulkMessage`.
 */
export function registerChannelRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/session/:sessionId/channels',
    {
      schema: {
        tags: ['channels'],
        summary: 'The channels the account owns or administers, with their followers',
        params: AccountIdParams,
        response: { 200: ChannelsListResponse, ...errors },
      },
    },
    async (request) => {
      await channelAccount(ctx, requireUser(request), request.params.sessionId);
      return channelsList(ctx.db, request.params.sessionId);
    },
  );

  app.post(
    '/api/session/:sessionId/channels',
    {
      schema: {
        tags: ['channels'],
        summary: 'Create a channel owned by the account',
        params: AccountIdParams,
        body: CreateChannelBody,
        response: { 200: ChannelResponse, ...errors },
      },
    },
    async (request) => {
      const user = requireUser(request);
      const { sessionId: accountId } = request.params;
      const { name, description } = request.body;
      const row = await orderedChannel(ctx, user, accountId, {
        kind: 'create',
        name,
        description: description || null,
      });
      await recordAudit(ctx.db, {
        actor: { id: user.id, username: user.username },
        action: 'channel.create',
        targetUserId: user.id,
        details: { sessionId: accountId, channelId: row.channelId, name: row.name },
        ip: request.ip,
      });
      return { success: true as const, message: CHANNEL_TEXTS.created, channel: presentChannel(row) };
    },
  );

  app.post(
    '/api/session/:sessionId/channels/add',
    {
      schema: {
        tags: ['channels'],
        summary: 'Add a channel the account owns or administers, by its link',
        params: AccountIdParams,
        body: AddChannelBody,
        response: { 200: ChannelResponse, ...errors },
      },
    },
    async (request) => {
      const invite = channelInviteCode(request.body.invite);
      if (!invite) throw badRequest(CHANNEL_TEXTS.inviteInvalid);
      const row = await orderedChannel(ctx, requireUser(request), request.params.sessionId, {
        kind: 'add',
        invite,
      });
      return { success: true as const, message: CHANNEL_TEXTS.added, channel: presentChannel(row) };
    },
  );

  app.post(
    '/api/session/:sessionId/channels/refresh',
    {
      schema: {
        tags: ['channels'],
        summary:
          'Read every channel again from WhatsApp (followers, role); those no longer administered leave the list',
        params: AccountIdParams,
        response: { 200: ChannelsListResponse, ...errors },
      },
    },
    async (request) => {
      const { sessionId: accountId } = request.params;
      const account = await channelAccount(ctx, requireUser(request), accountId);
      await orderChannels(ctx, account, { kind: 'refresh' });
      return { ...(await channelsList(ctx.db, accountId)), message: CHANNEL_TEXTS.refreshed };
    },
  );
}
