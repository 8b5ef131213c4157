import type { AccountRuntime } from '../../accounts/runtime.ts';
import type { AppContext } from '../../context.ts';
import { onSignal, signal } from '../../signals.ts';
import type { QuotaUpdate, UndeliveredCause } from '../../transport/types.ts';
import { AccountLoop } from './account-loop.ts';
import { createDispatchStore, recipientLeaseMs } from './store.ts';
import type { DispatchStore } from './store-port.ts';

export type DispatcherOptions = {
  /** How long an account loop waits after a failed claim or a refused send. */
  pollMs?: number;
  /** How often leases, waiting accounts, owned accounts and idle accounts' due times are checked (the fallback for a lost signal). */
  sweepMs?: number;
  /** How often the sweep starts due occurrences of repeating jobs (OCCURRENCE_CHECK_MS by default). */
  occurrenceCheckMs?: number;
  /**
   * Starts the due occurrences of repeating jobs (messaging/series, which composes the engine's
   * transitions: given here so that the engine does not import what is built on it). None: no series.
   */
  startDueOccurrences?: (ctx: AppContext) => Promise<unknown>;
  /** The statements to run (the database's store by default). */
  store?: DispatchStore;
};

export interface Dispatcher {
  stop(): Promise<void>;
  /** Runs the periodic checks now (tests use it to avoid waiting for the timer). */
  sweep(): Promise<void>;
}

/** How often the sweep looks for occurrences of repeating jobs to start (they start at most this late). */
const OCCURRENCE_CHECK_MS = 5_000;
/** How often the sweep looks for sent messages that have gone undelivered. */
const UNDELIVERED_CHECK_MS = 60_000;
/** How long `stop()` waits for sends in flight to be recorded. */
const STOP_WAIT_MS = 10_000;

/**
 * Sends the due recipients of the accounts this node owns: one AccountLoop per owned, connected
 * account; every outcome recorded through the store. A sweeper fails (and the store refunds)
 * what can no longer be sent: sends whose lease ran out (a node died mid-send) and recipients
 * that waited too long for their account. What comes back of the sends (receipts, refusals) is
 * not the dispatcher's: it enters by the engine's door for outcomes (messaging/outcomes.ts).
 */
export async function startDispatcher(
  ctx: AppContext,
  runtime: AccountRuntime,
  options: DispatcherOptions = {},
): Promise<Dispatcher> {
  const { config, log } = ctx;
  const pollMs = options.pollMs ?? 2000;
  const sweepMs = options.sweepMs ?? Math.max(100, Math.min(1000, Math.floor(config.accountWaitMs / 5)));
  const occurrenceCheckMs = options.occurrenceCheckMs ?? OCCURRENCE_CHECK_MS;
  const store = options.store ?? createDispatchStore(ctx.db, ctx.nodeId, recipientLeaseMs(config));

  const loops = new Map<string, AccountLoop>();
  let stopped = false;

  const loopDeps = {
    store,
    transportFor: (accountId: string) => runtime.transportFor(accountId),
    log,
    metrics: ctx.metrics,
    policyDefaults: {
      sendDelayMinMs: config.sendDelayMinMs,
      sendDelayMaxMs: config.sendDelayMaxMs,
      warmUpDefault: config.warmUpDefault,
    },
    pollMs,
    sendTimeoutMs: config.sendTimeoutMs,
    stopped: () => stopped,
    ended: (loop: AccountLoop) => {
      if (loops.get(loop.accountId) === loop) loops.delete(loop.accountId);
    },
  };

  /** Starts the account's loop if it has none; `wake` also rouses a running one (new work). */
  const ensureLoop = (accountId: string, wake = true) => {
    if (stopped) return;
    const existing = loops.get(accountId);
    if (existing?.active) {
      if (wake) existing.wake();
      return;
    }
    if (!runtime.transportFor(accountId)) return;
    loops.set(accountId, new AccountLoop(accountId, loopDeps, existing?.done));
  };

  /**
   * One statement for every idle loop of this node: the loops whose next recipient falls due
   * before the next sweep are woken then (scheduled jobs, retries, a missed signal).
   */
  const wakeDueLoops = async () => {
    const idle = [...loops.values()].filter((l) => l.idle && l.active);
    if (idle.length === 0) return;
    const due = await store.msUntilNextDue(idle.map((l) => l.accountId));
    for (const loop of idle) {
      const ms = due.get(loop.accountId);
      if (ms !== undefined && ms < sweepMs) loop.wakeIn(ms);
    }
  };

  let lastOccurrenceCheck = 0;
  let lastUndeliveredCheck = 0;
  // A minute late at most (a quarter of the deadline when that is shorter: tests).
  const undeliveredCheckMs = Math.min(UNDELIVERED_CHECK_MS, Math.max(sweepMs, config.undeliveredAfterMs / 4));
  let sweeping: Promise<void> | null = null;
  /** A sweep that sees everything written before the call: one already running may have started earlier. */
  const sweep = async (): Promise<void> => {
    while (sweeping) await sweeping;
    sweeping = (async () => {
      try {
        // One statement says which checks have work; an idle node runs none of them.
        const due = await store.sweepsDue(config.accountWaitMs);
        if (due.expiredLeases) await store.failExpiredLeases();
        // WhatsApp's restriction of new chats ended: their recipients go on.
        if (due.endedPauses) for (const accountId of await store.liftEndedPauses()) ensureLoop(accountId);
        // Jobs spread over accounts: recipients of an account down for long go to the healthy ones.
        if (due.spreadJobs)
          for (const accountId of await store.moveFromDownAccounts(config.failoverAfterMs))
            await signal(ctx, 'recipients-queued', accountId);
        if (due.waitingClocks) await store.updateWaitingClocks();
        if (due.longWaiting) await store.failLongWaiting(config.accountWaitMs);
        // A recipient put back in the queue after an admin disabled its owner (or revoked the flag).
        if (due.forbidden) await store.failForbidden();
        // Occurrences of repeating jobs whose time has come are reserved and queued (any node),
        // checked every few seconds: an idle node keeps to about one statement a second.
        // Sent messages with no delivery receipt in UNDELIVERED_AFTER_MS become undelivered (any
        // node: the statement locks what it takes, SKIP LOCKED).
        if (Date.now() - lastUndeliveredCheck >= undeliveredCheckMs) {
          lastUndeliveredCheck = Date.now();
          await store.markUndelivered(config.undeliveredAfterMs);
        }
        if (Date.now() - lastOccurrenceCheck >= occurrenceCheckMs) {
          lastOccurrenceCheck = Date.now();
          await options.startDueOccurrences?.(ctx);
        }
        // A missed `connected` event must not leave an owned account without its loop.
        for (const accountId of runtime.ownedAccountIds()) ensureLoop(accountId, false);
        await wakeDueLoops();
      } catch (err) {
        if (!stopped) log.error({ err }, 'dispatcher sweep failed');
      } finally {
        sweeping = null;
      }
    })();
    return sweeping;
  };

  const onQueued = (accountId: string) => ensureLoop(accountId);
  const onConnected = (accountId: string) => ensureLoop(accountId);
  const onDisconnected = (accountId: string) => loops.get(accountId)?.wake();
  // Why sent messages may never arrive: kept on their recipients for the undelivered transition.
  const onUndeliveredCause = (accountId: string, cause: UndeliveredCause) => {
    store
      .noteUndeliveredCause(accountId, cause)
      .catch((err) =>
        log.error({ err, accountId, cause: cause.cause }, 'noting why messages went undelivered failed'),
      );
  };
  // WhatsApp lifted the account's restriction of new chats: its one-to-one recipients go on.
  const onRestricted = (accountId: string, update: QuotaUpdate) => {
    if (!update.capped) ensureLoop(accountId);
  };
  runtime.on('connected', onConnected);
  runtime.on('disconnected', onDisconnected);
  runtime.on('undelivered-cause', onUndeliveredCause);
  runtime.on('restricted', onRestricted);
  const unsubscribe = await onSignal(ctx, 'recipients-queued', onQueued);

  const sweepTimer = setInterval(() => {
    if (!sweeping) void sweep();
  }, sweepMs);
  void sweep();

  return {
    sweep,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      clearInterval(sweepTimer);
      runtime.off('connected', onConnected);
      runtime.off('disconnected', onDisconnected);
      runtime.off('undelivered-cause', onUndeliveredCause);
      runtime.off('restricted', onRestricted);
      await unsubscribe();
      for (const loop of loops.values()) loop.stop();
      // A send that hangs must not hold up shutdown: its lease makes it 'delivery unknown' later.
      const stopTimeout = new Promise<void>((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref());
      await Promise.race([Promise.all([...loops.values()].map((l) => l.done)), stopTimeout]);
      await sweeping;
    },
  };
}
