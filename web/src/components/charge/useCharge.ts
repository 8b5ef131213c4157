import { useBalance } from '../../features/auth/api/get-user-details.ts';
import { useAccountToday } from '../../features/instances/api/get-account-policy.ts';
import { type PlanAudience, sendPlan } from '../../lib/send-plan.ts';
import type { Charge } from './ChargeSummary.tsx';
import type { ChargeShare } from './charge-lines.ts';

/**
 * The charge of a send of `count` recipients from `sessionId`'s account: the balance now, the
 * send day by day under the account's caps and its pace, and why it waits now.
 */
export function useCharge(opts: {
  accountId: string | null;
  count: number;
  audience: PlanAudience;
  shares: readonly ChargeShare[];
  metaCharge?: string | null;
  startsAt?: string | null;
  notes?: readonly string[];
  /** One post that many see (a Status, a channel post). */
  single?: boolean;
}): Charge {
  const balance = useBalance();
  const policy = useAccountToday(opts.accountId).data;
  return {
    recipients: opts.count,
    shares: opts.shares,
    balance,
    metaCharge: opts.metaCharge ?? null,
    plan: opts.single ? null : sendPlan(opts.count, opts.audience, policy),
    pace:
      policy && !opts.single
        ? { delayMinMs: policy.policy.delayMinMs, delayMaxMs: policy.policy.delayMaxMs }
        : null,
    single: opts.single ?? false,
    startsAt: opts.startsAt ?? null,
    holding: opts.startsAt ? null : (policy?.holding ?? null),
    notes: opts.notes ?? [],
  };
}
