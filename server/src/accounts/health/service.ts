import { type AccountHealthResponse, DEFAULT_TIMEZONE, type HealthSignals } from '@wa/contract';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { type Db, queryRows } from '../../db/client.ts';
import { authorizeAccount } from '../../policy/access.ts';
import type { UserRow } from '../../users/repository.ts';
import { type AccountRow, findAccount } from '../repository.ts';
import { pauseToProtect } from '../send-pause.ts';
import {
  countProtectPauses,
  findHealth,
  type HealthRow,
  localDate,
  readSignals,
  recordAccountEvent,
  saveHealth,
} from './repository.ts';
import { breakerTrips, coolingMs, protectReason, scoreHealth, stateOf } from './score.ts';

/**
 * An account's health and its circuit breaker (docs/accounts.md, "Account health and the circuit breaker"). The
 * node that drives an account evaluates it every HEALTH_CHECK_MS: below the pause threshold its
 * one-to-one sends pause (accounts/send-pause.ts, the pause's one writer) for HEALTH_COOLING_MS
 * or until the user resumes. Lifting the pause keeps the window's signals: while they still score
 * below the threshold the breaker trips again at the next check, each pause within the window
 * twice as long as the one before. The API reads the same assessment without acting.
 */

/** The sliding window: a day, the span of WhatsApp's own daily quotas and of our daily caps. */
export const HEALTH_WINDOW_MS = 86_400_000;

type Assessment = {
  score: number;
  reason: string | null;
  signals: HealthSignals;
  since: Date;
  pausedNow: boolean;
  /** The breaker's pause was lifted (by the user or the cooling's end) since the last evaluation. */
  protectLifted: boolean;
};

function pausedNowOf(row: AccountRow, now: Date): boolean {
  return row.sendPaused && (!row.sendPausedUntil || row.sendPausedUntil > now);
}

async function assess(
  db: Db,
  row: AccountRow,
  stored: HealthRow | undefined,
  now: Date,
): Promise<Assessment> {
  const pausedNow = pausedNowOf(row, now);
  // Not the reason's text: a disconnect while paused rewrites the account's status reason.
  const protectLifted = !!stored?.protectPausedAt && !pausedNow;
  const since = new Date(now.getTime() - HEALTH_WINDOW_MS);
  const signals = await readSignals(db, row.accountId, since);
  return { ...scoreHealth(signals), signals, since, pausedNow, protectLifted };
}

function present(row: AccountRow, a: Assessment, pausedNow: boolean): AccountHealthResponse {
  return {
    score: a.score,
    state: stateOf(a.score, pausedNow),
    reason: pausedNow ? (row.statusReason ?? a.reason) : a.reason,
    signals: a.signals,
    since: a.since.toISOString(),
    pausedUntil: pausedNow && row.sendPausedUntil ? row.sendPausedUntil.toISOString() : null,
  };
}

/** `GET /api/session/:sessionId/health`: the owner, or the admin who manages them, may read it. */
export async function getAccountHealth(
  ctx: AppContext,
  user: UserRow,
  accountId: string,
): Promise<AccountHealthResponse> {
  const row = await authorizeAccount(ctx.db, user, 'read', accountId);
  const now = new Date();
  const a = await assess(ctx.db, row, await findHealth(ctx.db, accountId), now);
  return present(row, a, a.pausedNow);
}

const daysBetween = (a: string, b: string) => Math.round((Date.parse(b) - Date.parse(a)) / 86_400_000);

/**
 * The warm-up's days that did not count: each local day that began while the account was not
 * healthy (watch or paused) holds its warm-up step back a day.
 */
export function warmUpHeld(
  stored: Pick<HealthRow, 'warmUpHeldDays' | 'warmUpDayChecked'> | undefined,
  today: string,
  healthy: boolean,
): { warmUpHeldDays: number; warmUpDayChecked: string } {
  const held = stored?.warmUpHeldDays ?? 0;
  const checked = stored?.warmUpDayChecked;
  if (!checked || checked >= today || healthy) return { warmUpHeldDays: held, warmUpDayChecked: today };
  return { warmUpHeldDays: held + daysBetween(checked, today), warmUpDayChecked: today };
}

/**
 * Evaluates one account this node drives: scores it, trips the breaker, advances or holds its
 * warm-up, and stores the result (read by the sending gate and Prometheus).
 */
export async function evaluateHealth(
  ctx: Pick<AppContext, 'db' | 'nodeId' | 'config' | 'log'>,
  accountId: string,
  now = new Date(),
): Promise<AccountHealthResponse | null> {
  const { db } = ctx;
  const row = await findAccount(db, accountId);
  if (!row) return null;
  const stored = await findHealth(db, accountId);
  const a = await assess(db, row, stored, now);
  let pausedNow = a.pausedNow;
  let protectPausedAt = a.protectLifted ? null : (stored?.protectPausedAt ?? null);
  let current = row;
  if (breakerTrips(a.score, pausedNow)) {
    const base = ctx.config.healthCoolingMs;
    const cooling = coolingMs(base, await countProtectPauses(db, accountId, a.since));
    const reason = protectReason(a.reason, cooling, base);
    const until = new Date(now.getTime() + cooling);
    if (await pauseToProtect(db, accountId, reason, until, ctx.nodeId)) {
      await recordAccountEvent(db, accountId, 'protect-paused', reason);
      ctx.log.warn({ accountId, score: a.score, reason }, 'account paused to protect it');
      pausedNow = true;
      protectPausedAt = now;
      current = { ...row, sendPaused: true, sendPausedUntil: until, statusReason: reason };
    }
  }
  const result = present(current, a, pausedNow);
  const [policy] = await queryRows<{ timezone: string }>(
    db,
    sql`SELECT timezone FROM session_policies WHERE session_id = ${accountId}`,
  );
  const warmUp = warmUpHeld(
    stored,
    localDate(now, policy?.timezone ?? DEFAULT_TIMEZONE),
    result.state === 'good',
  );
  await saveHealth(
    db,
    accountId,
    {
      score: a.score,
      state: result.state,
      reason: result.reason,
      signals: a.signals,
      windowFrom: a.since,
      protectPausedAt,
      ...warmUp,
    },
    now,
  );
  return result;
}
