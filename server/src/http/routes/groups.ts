import {
  ErrorResponse,
  GroupChatsResponse,
  GroupsListResponse,
  GroupsQuery,
  SessionIdParams,
} from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { groupChats, groupsList } from '../../groups/service.ts';
import { type App, requireUser } from '../types.ts';

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
      groupsList(ctx, requireUser(request), request.params.sessionId, request.query.refresh === '1'),
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
      groupChats(ctx, requireUser(request), request.params.sessionId, request.query.refresh === '1'),
  );
}
