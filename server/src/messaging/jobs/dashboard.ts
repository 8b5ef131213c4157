import type { DashboardResponse } from '@wa/contract';
import { firstAccountOfUser } from '../../accounts/repository.ts';
import type { AppContext } from '../../context.ts';
import { MESSAGES } from '../../errors.ts';
import { groupFigures } from '../../groups/repository.ts';
import { authorizeAccount } from '../../policy/access.ts';
import type { UserRow } from '../../users/repository.ts';
import { presentJob } from '../jobs/present.ts';
import * as repo from '../jobs/repository.ts';
import { holdsOfJobs } from './list.ts';

export async function dashboard(
  ctx: AppContext,
  user: UserRow,
  accountId: string | undefined,
): Promise<DashboardResponse> {
  let sid: string | null;
  if (accountId) {
    sid = (await authorizeAccount(ctx.db, user, 'act', accountId, MESSAGES.noSession)).accountId;
  } else {
    sid = await firstAccountOfUser(ctx.db, user.id);
  }
  const groups = sid ? await groupFigures(ctx.db, sid) : { groups: 0, members: 0 };
  const figures = await repo.messageFigures(ctx.db, user.id);
  const recent = await repo.listJobs(ctx.db, user.id, { limit: 5, offset: 0 });
  const now = new Date();
  const holds = await holdsOfJobs(ctx, recent);
  return {
    success: true,
    sessionId: sid,
    totalGroups: groups.groups,
    totalMembers: groups.members,
    messagesSent: figures.sent,
    delivered: figures.delivered,
    deliveryRate: figures.sent > 0 ? Math.round((figures.delivered * 1000) / figures.sent) / 10 : 0,
    recentJobs: recent.map((r) => presentJob(r, now, holds)),
  };
}
