import {
  CLOUD_TEXTS,
  ErrorResponse,
  GroupChatsResponse,
  GroupsListResponse,
  GroupsQuery,
  SessionIdParams,
} from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../errors.ts';
import {
  GROUPS_REFRESH_MIN_GAP_MS,
  type GroupsSource,
  groupChats,
  groupsList,
} from '../../groups/service.ts';
import { authorizeSession } from '../../policy/access.ts';
import { capabilitiesOf } from '../../sessions/providers.ts';
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
  // A Cloud API number has no groups: the pages say so instead of waiting for a fetch.
  if (!capabilitiesOf(ctx.config, session.kind).groups) throw badRequest(CLOUD_TEXTS.groupsLinkedOnly);
  const connected = effectiveStatus(session) === 'CONNECTED';
  if (refresh && connected && (await requestGroupsRefresh(ctx.db, sessionId, GROUPS_REFRESH_MIN_GAP_MS)))
    await signal(ctx, 'session-changed', sessionId);
  return { sessionId, connected, groupsFetchedAt: session.groupsFetchedAt };
}

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

/** The account's groups, as the Group List reads them and as chats (same source, two shapes). */
const ROUTES = [
  { path: '/api/groupsList/:sessionId', response: GroupsListResponse, present: groupsList },
  { path: '/api/groupChats/:sessionId', response: GroupChatsResponse, present: groupChats },
] as const;

export function registerGroupRoutes(app: App, ctx: AppContext): void {
  for (const route of ROUTES)
    app.get(
      route.path,
      {
        schema: {
          tags: ['groups'],
          params: SessionIdParams,
          querystring: GroupsQuery,
          response: { 200: route.response, ...errors },
        },
      },
      async (request) =>
        route.present(
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
