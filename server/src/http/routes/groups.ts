import {
  AccountIdParams,
  CLOUD_TEXTS,
  ErrorResponse,
  GroupChatsResponse,
  GroupsListResponse,
  GroupsQuery,
} from '@wa/contract';
import { capabilitiesOf } from '../../accounts/providers.ts';
import { requestGroupsRefresh } from '../../accounts/repository.ts';
import { effectiveStatus } from '../../accounts/service.ts';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../errors.ts';
import {
  GROUPS_REFRESH_MIN_GAP_MS,
  type GroupsSource,
  groupChats,
  groupsList,
} from '../../groups/service.ts';
import { authorizeAccount } from '../../policy/access.ts';
import { signal } from '../../signals.ts';
import type { UserRow } from '../../users/repository.ts';
import { type App, requireUser } from '../types.ts';

/** The account whose groups are asked for (the owner's only); with `refresh` its driving node is asked for a fresh fetch. */
async function groupsSource(
  ctx: AppContext,
  user: UserRow,
  accountId: string,
  refresh: boolean,
): Promise<GroupsSource> {
  const account = await authorizeAccount(ctx.db, user, 'act', accountId);
  // A Cloud API number has no groups: the pages say so instead of waiting for a fetch.
  if (!capabilitiesOf(ctx.config, account.kind).groups) throw badRequest(CLOUD_TEXTS.groupsLinkedOnly);
  const connected = effectiveStatus(account) === 'CONNECTED';
  if (refresh && connected && (await requestGroupsRefresh(ctx.db, accountId, GROUPS_REFRESH_MIN_GAP_MS)))
    await signal(ctx, 'session-changed', accountId);
  return { accountId, connected, groupsFetchedAt: account.groupsFetchedAt };
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
          params: AccountIdParams,
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
