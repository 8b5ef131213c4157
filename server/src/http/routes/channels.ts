import {
  AddChannelBody,
  CHANNEL_TEXTS,
  ChannelResponse,
  ChannelsListResponse,
  CreateChannelBody,
  channelInviteCode,
  ErrorResponse,
  SessionIdParams,
} from '@wa/contract';
import { recordAudit } from '../../audit/record.ts';
import { findChannel } from '../../channels/repository.ts';
import { channelsList, presentChannel } from '../../channels/service.ts';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../errors.ts';
import { authorizeSession } from '../../policy/access.ts';
import { type ChannelOrder, orderChannels } from '../../sessions/channel-orders.ts';
import { capabilitiesOf } from '../../sessions/providers.ts';
import type { UserRow } from '../../users/repository.ts';
import { type App, requireUser } from '../types.ts';

const errors = {
  400: ErrorResponse,
  401: ErrorResponse,
  404: ErrorResponse,
  409: ErrorResponse,
  503: ErrorResponse,
};

/** The session whose channels these are (the owner's only); a Cloud API number has none. */
async function channelSession(ctx: AppContext, user: UserRow, sessionId: string) {
  const session = await authorizeSession(ctx.db, user, 'act', sessionId);
  if (!capabilitiesOf(ctx.config, session.kind).channels) throw badRequest(CHANNEL_TEXTS.linkedOnly);
  return session;
}

/** The channel an order created or added, as stored by the node that did it. */
async function orderedChannel(ctx: AppContext, user: UserRow, sessionId: string, order: ChannelOrder) {
  const session = await channelSession(ctx, user, sessionId);
  const done = await orderChannels(ctx, session, order);
  const row = done.channelId ? await findChannel(ctx.db, sessionId, done.channelId) : undefined;
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
        params: SessionIdParams,
        response: { 200: ChannelsListResponse, ...errors },
      },
    },
    async (request) => {
      await channelSession(ctx, requireUser(request), request.params.sessionId);
      return channelsList(ctx.db, request.params.sessionId);
    },
  );

  app.post(
    '/api/session/:sessionId/channels',
    {
      schema: {
        tags: ['channels'],
        summary: 'Create a channel owned by the account',
        params: SessionIdParams,
        body: CreateChannelBody,
        response: { 200: ChannelResponse, ...errors },
      },
    },
    async (request) => {
      const user = requireUser(request);
      const { sessionId } = request.params;
      const { name, description } = request.body;
      const row = await orderedChannel(ctx, user, sessionId, {
        kind: 'create',
        name,
        description: description || null,
      });
      await recordAudit(ctx.db, {
        actor: { id: user.id, username: user.username },
        action: 'channel.create',
        targetUserId: user.id,
        details: { sessionId, channelId: row.channelId, name: row.name },
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
        params: SessionIdParams,
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
        params: SessionIdParams,
        response: { 200: ChannelsListResponse, ...errors },
      },
    },
    async (request) => {
      const { sessionId } = request.params;
      const session = await channelSession(ctx, requireUser(request), sessionId);
      await orderChannels(ctx, session, { kind: 'refresh' });
      return { ...(await channelsList(ctx.db, sessionId)), message: CHANNEL_TEXTS.refreshed };
    },
  );
}
