import type { SessionPolicy, SessionPolicyResponse } from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { MESSAGES } from '../../errors.ts';
import { authorizeSession } from '../../policy/access.ts';
import { signal } from '../../signals.ts';
import type { UserRow } from '../../users/repository.ts';
import { capsToday, resolvePolicy } from './allowance.ts';
import { localDayStart, nextLocalTime } from './clock.ts';
import { countSentSince, findPolicy, holdsOf, savePolicy } from './repository.ts';

/** The account's policy with today's figures (the owner, or the admin who manages them, may read it). */
export async function getSessionPolicy(
  ctx: AppContext,
  user: UserRow,
  sessionId: string,
): Promise<SessionPolicyResponse> {
  await authorizeSession(ctx.db, user, 'read', sessionId, MESSAGES.noSession);
  return present(ctx, sessionId);
}

/** Replaces the account's policy (owner only); its sending loop reads it at once. */
export async function putSessionPolicy(
  ctx: AppContext,
  user: UserRow,
  sessionId: string,
  policy: SessionPolicy,
): Promise<SessionPolicyResponse> {
  await authorizeSession(ctx.db, user, 'act', sessionId, MESSAGES.noSession);
  await savePolicy(ctx.db, sessionId, {
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
  await signal(ctx, 'recipients-queued', sessionId);
  return present(ctx, sessionId);
}

async function present(ctx: AppContext, sessionId: string): Promise<SessionPolicyResponse> {
  const { row, linkedAt, health } = await findPolicy(ctx.db, sessionId);
  const policy = resolvePolicy(row, ctx.config);
  const now = new Date();
  const sent = await countSentSince(ctx.db, sessionId, localDayStart(now, policy.timezone), true);
  const caps = capsToday(policy, linkedAt, now, health);
  const holding = (await holdsOf(ctx.db, [sessionId])).get(sessionId) ?? null;
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
      resetsAt: nextLocalTime(now, policy.timezone, '00:00').toISOString(),
    },
    holding,
  };
}
