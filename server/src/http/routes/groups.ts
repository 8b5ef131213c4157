import {
  ErrorResponse,
  GroupChatsResponse,
  GroupsListResponse,
  GroupsQuery,
  SessionIdParams,
} from '@wa/contract';
import type { AppContext } from '../../context.ts';
import {
  GROUPS_REFRESH_MIN_GAP_MS,
  type GroupsSource,
  groupChats,
  groupsList,
} from '../../groups/service.ts';
import { authorizeSession } from '../../policy/access.ts';
import { requestGroupsRefresh } from '../../sessions/repository.ts';
import { effectiveStatus } from '../../sessions/service.ts';
import { signal } from '../../signals.ts';
import type { UserRow } from '../../users/repository.ts';
import { type App, requireUser } from '../types.ts';

/** The session whose groups are asked for (the owner's only); with `refresh` its driving node is asked for a fresh fetch. */
async function groupsSource(
  ctx: AppContext,
  user: UserRow,
  sessionId: string,
  refresh: boolean,
): Promise<GroupsSource> {
  const session = await authorizeSession(ctx.db, user, 'act', sessionId);
  const connected = effectiveStatus(session) === 'CONNECTED';
  if (refresh && connected && (await requestGroupsRefresh(ctx.db, sessionId, GROUPS_REFRESH_MIN_GAP_MS)))
    await signal(ctx, 'session-changed', sessionId);
  return { sessionId, connected, groupsFetchedAt: session.groupsFetchedAt };
}

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

export function registerGroupRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/groupsList/:sessionId',
    {
      schema: {
        tags: ['groups'],
        params: SessionIdParams,
        querystring: GroupsQuery,
        response: { 200: GroupsListResponse, ...errors },
      },
    },
    async (request) =>
      groupsList(
        ctx.db,
        await groupsSource(
          ctx,
          requireUser(request),
          request.params.sessionId,
          request.query.refresh === '1',
        ),
      ),
  );

  app.get(
    '/api/groupChats/:sessionId',
    {
      schema: {
        tags: ['groups'],
        params: SessionIdParams,
        querystring: GroupsQuery,
        response: { 200: GroupChatsResponse, ...errors },
      },
    },
    async (request) =>
      groupChats(
        ctx.db,
        await groupsSource(
          ctx,
          requireUser(request),
          request.params.sessionId,
          request.query.refresh === '1',
        ),
      ),
  );
}
