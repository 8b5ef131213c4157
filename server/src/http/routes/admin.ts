import {
  AdminOverviewResponse,
  AuditQuery,
  AuditResponse,
  CreateUserBody,
  ErrorResponse,
  GrantCreditsBody,
  GrantCreditsResponse,
  LedgerResponse,
  ListUsersResponse,
  UpdateUserBody,
  UserIdParams,
  UserResponse,
} from '@wa/contract';
import { stopAccountsOfUser } from '../../accounts/service.ts';
import type { AppContext } from '../../context.ts';
import { failForbiddenWaiting } from '../../messaging/jobs/actions.ts';
import { adminOverview } from '../../reports/admin-overview.ts';
import { auditForAdmin } from '../../users/audit-log.ts';
import {
  createUserForAdmin,
  grantCredits,
  ledgerForAdmin,
  listUsersForAdmin,
  updateUserForAdmin,
} from '../../users/service.ts';
import { type App, requireAdmin } from '../types.ts';

/** Shown on a disabled account's sessions. */
export const USER_DISABLED_REASON = 'The account is disabled';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse };

/** ADMIN API: every call is scoped to the users the signed-in admin manages. */
export function registerAdminRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;
  app.get(
    '/api/admin/users',
    { config: { admin: true }, schema: { tags: ['admin'], response: { 200: ListUsersResponse, ...errors } } },
    async (request) => ({
      success: true as const,
      users: await listUsersForAdmin(db, requireAdmin(request).id),
    }),
  );

  app.post(
    '/api/admin/users',
    {
      config: { admin: true },
      schema: {
        tags: ['admin'],
        body: CreateUserBody,
        response: { 200: UserResponse, ...errors, 409: ErrorResponse },
      },
    },
    async (request) => ({
      success: true as const,
      user: await createUserForAdmin(db, { actor: requireAdmin(request), ip: request.ip }, request.body),
    }),
  );

  app.patch(
    '/api/admin/users/:id',
    {
      config: { admin: true },
      schema: {
        tags: ['admin'],
        params: UserIdParams,
        body: UpdateUserBody,
        response: { 200: UserResponse, ...errors },
      },
    },
    async (request) => {
      const admin = requireAdmin(request);
      const user = await updateUserForAdmin(db, admin, request.ip, request.params.id, request.body);
      // Disabling also ends the account's work: its accounts stop (its tokens are already revoked).
      if (request.body.disabled === true) await stopAccountsOfUser(ctx, user.id, USER_DISABLED_REASON);
      // What waits to be sent and may no longer be fails and is refunded at once.
      if (request.body.disabled === true || request.body.is_bulk_messaging_enabled === false)
        await failForbiddenWaiting(ctx, user.id);
      return { success: true as const, user };
    },
  );

  app.post(
    '/api/admin/users/:id/credits',
    {
      config: { admin: true },
      schema: {
        tags: ['admin'],
        params: UserIdParams,
        body: GrantCreditsBody,
        response: { 200: GrantCreditsResponse, ...errors },
      },
    },
    async (request) => ({
      success: true as const,
      credits: await grantCredits(
        db,
        requireAdmin(request),
        request.ip,
        request.params.id,
        request.body.amount,
        request.body.note,
      ),
    }),
  );

  app.get(
    '/api/admin/overview',
    {
      config: { admin: true },
      schema: {
        tags: ['admin'],
        summary: 'Overview of the users you manage: this month, accounts, last sign-in, messages per day',
        response: { 200: AdminOverviewResponse, ...errors },
      },
    },
    async (request) => ({ success: true as const, ...(await adminOverview(db, requireAdmin(request).id)) }),
  );

  app.get(
    '/api/admin/audit',
    {
      config: { admin: true },
      schema: {
        tags: ['admin'],
        summary: 'Audit log: who did what to whom, when and from where; newest first',
        querystring: AuditQuery,
        response: { 200: AuditResponse, ...errors },
      },
    },
    async (request) => ({
      success: true as const,
      ...(await auditForAdmin(db, requireAdmin(request), request.query)),
    }),
  );

  app.get(
    '/api/admin/users/:id/ledger',
    {
      config: { admin: true },
      schema: { tags: ['admin'], params: UserIdParams, response: { 200: LedgerResponse, ...errors } },
    },
    async (request) => ({
      success: true as const,
      entries: await ledgerForAdmin(db, requireAdmin(request), request.params.id),
    }),
  );
}
