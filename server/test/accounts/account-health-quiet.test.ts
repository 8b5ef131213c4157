import { DEFAULT_TIMEZONE } from '@wa/contract';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  accountsToEvaluate,
  REFRESH_MINUTES,
  recordAccountEvent,
} from '../../src/accounts/health/repository.ts';
import { evaluateHealth } from '../../src/accounts/health/service.ts';
import { queryRows } from '../../src/db/client.ts';
import { appWithEngine, DB_KINDS, linkedAccount } from '../helpers.ts';

/**
 * The node's health check evaluates only the accounts whose health may have changed: an idle
 * account's score stays what it was, and rewriting it every minute was most of what an idle node
 * with 1,000 accounts sent to its database.
 */
describe.each(DB_KINDS)('which accounts the health check evaluates on %s', (kind) => {
  const users = new Set<string>();
  // The runner's own check never runs here: the test calls it.
  const { t } = appWithEngine(
    kind,
    { HEALTH_CHECK_MS: '3600000', SIMULATOR_LINK_AFTER_MS: '3600000' },
    users,
  );
  const due = (ids: string[], marginMs = t.ctx.config.healthMarginMs) =>
    accountsToEvaluate(t.db, ids, new Date(), DEFAULT_TIMEZONE, marginMs);
  const evaluatedAt = async (accountId: string) =>
    (
      await queryRows<{ at: string }>(
        t.db,
        sql`SELECT evaluated_at::text AS at FROM account_health WHERE session_id = ${accountId}`,
      )
    )[0]?.at;

  it('skips a quiet account, and takes it again after an event, a sent message, a new day, or a while with signals', async () => {
    const [quiet, evented, sent, newDay, never] = await Promise.all(
      Array.from({ length: 5 }, () => linkedAccount(t, { track: users })),
    );
    const ids = [quiet, evented, sent, newDay, never].map((a) => a!.accountId);
    for (const id of ids.slice(0, 4)) await evaluateHealth(t.ctx, id);
    // Evaluated, nothing since: only the one never evaluated is due.
    expect(await due(ids)).toEqual([never!.accountId]);

    await recordAccountEvent(t.db, evented!.accountId, 'disconnected', 'Connection lost');
    await t.db.execute(
      sql`INSERT INTO message_job_recipients (job_id, session_id, chat_id, status, sent_at, updated_at)
          VALUES ('quiet-test', ${sent!.accountId}, '919712345678@s.whatsapp.net', 'sent', now(), now())`,
    );
    await t.db.execute(
      sql`UPDATE account_health SET warm_up_day_checked = '2020-01-01' WHERE session_id = ${newDay!.accountId}`,
    );
    expect(new Set(await due(ids))).toEqual(new Set(ids.slice(1)));

    // Evaluated again: the event and the message came less than a minute before, so those two
    // are due once more (a write may have begun before the evaluation read); the new day is taken.
    const before = await evaluatedAt(quiet!.accountId);
    for (const id of ids.slice(1)) await evaluateHealth(t.ctx, id);
    expect(new Set(await due(ids))).toEqual(new Set([evented!.accountId, sent!.accountId]));
    // Once they are over a minute old, quiet again, although they are signals in the window.
    await t.db.execute(
      sql`UPDATE account_events SET at = at - interval '2 minutes' WHERE session_id = ${evented!.accountId}`,
    );
    await t.db.execute(
      sql`UPDATE message_job_recipients SET sent_at = sent_at - interval '2 minutes' WHERE session_id = ${sent!.accountId}`,
    );
    expect(await due(ids)).toEqual([]);
    expect(await evaluatedAt(quiet!.accountId)).toBe(before);

    // Those two again once REFRESH_MINUTES passed: their signals leave the window as it slides.
    await t.db.execute(
      sql`UPDATE account_health SET evaluated_at = now() - make_interval(mins => ${REFRESH_MINUTES + 1})
          WHERE session_id = ANY(${sql.param(ids)}::text[])`,
    );
    expect(new Set(await due(ids))).toEqual(new Set([evented!.accountId, sent!.accountId]));
  });

  it('takes an account paused or resumed since its last evaluation, and one under the breaker', async () => {
    const [paused, protectedOne] = await Promise.all([
      linkedAccount(t, { track: users }),
      linkedAccount(t, { track: users }),
    ]);
    const ids = [paused!.accountId, protectedOne!.accountId];
    for (const id of ids) await evaluateHealth(t.ctx, id);
    expect(await due(ids)).toEqual([]);
    await t.db.execute(
      sql`UPDATE wa_sessions SET send_paused = true WHERE session_id = ${paused!.accountId}`,
    );
    await t.db.execute(
      sql`UPDATE account_health SET protect_paused_at = now() WHERE session_id = ${protectedOne!.accountId}`,
    );
    expect(new Set(await due(ids))).toEqual(new Set(ids));
    // Evaluated while paused: its state says so, and it waits for the pause to end.
    await evaluateHealth(t.ctx, paused!.accountId);
    expect(await due([paused!.accountId])).toEqual([]);
    await t.db.execute(
      sql`UPDATE wa_sessions SET send_paused = false WHERE session_id = ${paused!.accountId}`,
    );
    expect(await due([paused!.accountId])).toEqual([paused!.accountId]);
  });

  it('evaluates an account again until its last write is HEALTH_MARGIN_MS older than its evaluation', async () => {
    const account = await linkedAccount(t, { track: users });
    const id = account!.accountId;
    expect(t.ctx.config.healthMarginMs).toBe(60_000);
    await recordAccountEvent(t.db, id, 'disconnected', 'Connection lost');
    await evaluateHealth(t.ctx, id);
    // Evaluated after the event, but within any margin of it: due again.
    expect(await due([id])).toEqual([id]);
    expect(await due([id], 5_000)).toEqual([id]);
    // Ten seconds older: still within the default minute, past a margin of 5 s.
    await t.db.execute(
      sql`UPDATE account_events SET at = at - interval '10 seconds' WHERE session_id = ${id}`,
    );
    expect(await due([id])).toEqual([id]);
    expect(await due([id], 5_000)).toEqual([]);
  });
});
