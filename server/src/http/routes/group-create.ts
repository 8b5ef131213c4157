import {
  AccountIdParams,
  CreateGroupBody,
  CreateGroupResponse,
  ErrorResponse,
  GROUP_CREATE_TEXTS,
} from '@wa/contract';
import { createGroup } from '../../accounts/group-create.ts';
import { capabilitiesOf } from '../../accounts/providers.ts';
import { recordAudit } from '../../audit/record.ts';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../errors.ts';
import { authorizeAccount } from '../../policy/access.ts';
import { type App, requireUser } from '../types.ts';

/** The Dashboard's "Add New Group": a WhatsApp group made by one of the user's linked phones. */
export function registerGroupCreateRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/api/session/:sessionId/groups',
    {
      schema: {
        tags: ['groups'],
        summary:
          'Make a WhatsApp group with its name and first members (the first few numbers; the rest get its invite link)',
        params: AccountIdParams,
        body: CreateGroupBody,
        response: {
          200: CreateGroupResponse,
          400: ErrorResponse,
          401: ErrorResponse,
          404: ErrorResponse,
          409: ErrorResponse,
          503: ErrorResponse,
        },
      },
    },
    async (request) => {
      const user = requireUser(request);
      const account = await authorizeAccount(ctx.db, user, 'act', request.params.sessionId);
      if (!capabilitiesOf(ctx.config, account.kind).createGroups)
        throw badRequest(GROUP_CREATE_TEXTS.linkedOnly);
      const made = await createGroup(ctx, account, request.body);
      await recordAudit(ctx.db, {
        actor: { id: user.id, username: user.username },
        action: 'group.create',
        targetUserId: user.id,
        details: { sessionId: account.accountId, groupId: made.groupId, added: made.added.length },
        ip: request.ip,
      });
      return made;
    },
  );
}
