import { type AccountPolicy, type AccountPolicyResponse, FORECAST_DAYS } from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { MESSAGES } from '../../errors.ts';
import { authorizeAccount } from '../../policy/access.ts';
import { signal } from '../../signals.ts';
import type { UserRow } from '../../users/repository.ts';
import { capsToday, resolvePolicy } from './allowance.ts';
import { localDayStart, nextLocalTime } from './clock.ts';
import { countSentSince, findPolicy, holdsOf, savePolicy } from './repository.ts';

/** The account's policy with today's figures (the owner, or the admin who manages them, may read it). */
export async function getAccountPolicy(
  ctx: AppContext,
  user: UserRow,
  accountId: string,
): Promise<AccountPolicyResponse> {
  await authorizeAccount(ctx.db, user, 'read', accountId, MESSAGES.noSession);
  return present(ctx, accountId);
}

/** Replaces the account's policy (owner only); its sending loop reads it at once. */
export async function putAccountPolicy(
  ctx: AppContext,
  user: UserRow,
  accountId: string,
  policy: AccountPolicy,
): Promise<AccountPolicyResponse> {
  await authorizeAccount(ctx.db, user, 'act', accountId, MESSAGES.noSession);
  await savePolicy(ctx.db, accountId, {
    dailyLimit: policy.dailyLimit,
    warmUp: policy.warmUp,
    quietStart: policy.quietHours?.start ?? null,
    quietEnd: policy.quietHours?.end ?? null,
    timezone: policy.timezone,
    delayMinMs: policy.delayMinMs,
    delayMaxMs: policy.delayMaxMs,
    typing: policy.typing,
    // Left out: the default (null); null: no cap, stored as 0.
    newContactsPerDay: policy.newContactsPerDay === undefined ? null : (policy.newContactsPerDay ?? 0),
  });
  // Wakes the account's loop on whichever node drives it: a hold may end or begin.
  await signal(ctx, 'recipients-queued', accountId);
  return present(ctx, accountId);
}

async function present(ctx: AppContext, accountId: string): Promise<AccountPolicyResponse> {
  const { row, linkedAt, health } = await findPolicy(ctx.db, accountId);
  const policy = resolvePolicy(row, ctx.config);
  const now = new Date();
  const sent = await countSentSince(ctx.db, accountId, localDayStart(now, policy.timezone), true);
  const caps = capsToday(policy, linkedAt, now, health);
  const holding = (await holdsOf(ctx.db, [accountId])).get(accountId) ?? null;
  const resetsAt = nextLocalTime(now, policy.timezone, '00:00');
  // The caps of each coming day, as the engine will find them then (the health as it is now).
  const nextDays: NonNullable<AccountPolicyResponse['nextDays']> = [];
  for (let day = resetsAt; nextDays.length < FORECAST_DAYS; ) {
    const c = capsToday(policy, linkedAt, day, health);
    nextDays.push({
      startsAt: day.toISOString(),
      limit: c.daily,
      warmUpLimit: c.warmUp,
      newContactsLimit: c.newContacts,
    });
    day = nextLocalTime(new Date(day.getTime() + 60_000), policy.timezone, '00:00');
  }
  return {
    success: true,
    policy,
    today: {
      sent: sent.all,
      oneToOneSent: sent.oneToOne,
      limit: caps.daily,
      warmUpLimit: caps.warmUp,
      newContactsSent: sent.newContacts,
      newContactsLimit: caps.newContacts,
      ...(health ? { health: health.state } : {}),
      resetsAt: resetsAt.toISOString(),
    },
    nextDays,
    holding,
  };
}
