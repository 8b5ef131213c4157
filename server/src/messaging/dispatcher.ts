import type { AppContext } from '../context.ts';
import type { SessionRuntime } from '../sessions/runtime.ts';
import { onSignal } from '../signals.ts';
import {
  createDispatchStore,
  type DispatchStore,
  type Receipt,
  recipientLeaseMs,
  type SessionReceipt,
} from './dispatch-store.ts';
import { SessionLoop } from './session-loop.ts';

export type DispatcherOptions = {
  /** How long a session loop waits after a failed claim or a refused send. */
  pollMs?: number;
  /** How often leases, waiting sessions, owned sessions and idle sessions' due times are checked (the fallback for a lost signal). */
  sweepMs?: number;
  /** The statements to run (the database's store by default). */
  store?: DispatchStore;
};

export interface Dispatcher {
  stop(): Promise<void>;
  /** Runs the periodic checks now (tests use it to avoid waiting for the timer). */
  sweep(): Promise<void>;
}

const RECEIPT_FLUSH_MS = 250;
/** How long `stop()` waits for sends in flight to be recorded. */
const STOP_WAIT_MS = 10_000;

/**
 * Sends the due recipients of the sessions this node owns: one SessionLoop per owned, connected
 * session; every outcome recorded through the store. A sweeper fails (and the store refunds)
 * what can no longer be sent: sends whose lease ran out (a node died mid-send) and recipients
 * that waited too long for their session. Receipts are batched every 250 ms.
 */
export async function startDispatcher(
  ctx: AppContext,
  runtime: SessionRuntime,
  options: DispatcherOptions = {},
): Promise<Dispatcher> {
  const { config, log } = ctx;
  const pollMs = options.pollMs ?? 2000;
  const sweepMs = options.sweepMs ?? Math.max(100, Math.min(1000, Math.floor(config.sessionWaitMs / 5)));
  const store = options.store ?? createDispatchStore(ctx.db, ctx.nodeId, recipientLeaseMs(config));

  const loops = new Map<string, SessionLoop>();
  let receipts: SessionReceipt[] = [];
  let stopped = false;

  const loopDeps = {
    store,
    transportFor: (sessionId: string) => runtime.transportFor(sessionId),
    log,
    metrics: ctx.metrics,
    paced: config.sendDelayMaxMs > 0,
    delay: () =>
      config.sendDelayMinMs + Math.floor(Math.random() * (config.sendDelayMaxMs - config.sendDelayMinMs + 1)),
    pollMs,
    receipt: (sessionId: string, r: Receipt) => {
      receipts.push({ ...r, sessionId });
    },
    stopped: () => stopped,
    ended: (loop: SessionLoop) => {
      if (loops.get(loop.sessionId) === loop) loops.delete(loop.sessionId);
    },
  };

  /** Starts the session's loop if it has none; `wake` also rouses a running one (new work). */
  const ensureLoop = (sessionId: string, wake = true) => {
    if (stopped) return;
    const existing = loops.get(sessionId);
    if (existing?.active) {
      if (wake) existing.wake();
      return;
    }
    if (!runtime.transportFor(sessionId)) return;
    loops.set(sessionId, new SessionLoop(sessionId, loopDeps, existing?.done));
  };

  /** Every session's receipts of the last 250 ms in one transaction. */
  const flushReceipts = async () => {
    if (receipts.length === 0) return;
    const batch = receipts;
    receipts = [];
    await store.applyReceipts(batch).catch((err) => log.error({ err }, 'recording receipts failed'));
  };

  /**
   * One statement for every idle loop of this node: the loops whose next recipient falls due
   * before the next sweep are woken then (scheduled jobs, retries, a missed signal).
   */
  const wakeDueLoops = async () => {
    const idle = [...loops.values()].filter((l) => l.idle && l.active);
    if (idle.length === 0) return;
    const due = await store.msUntilNextDue(idle.map((l) => l.sessionId));
    for (const loop of idle) {
      const ms = due.get(loop.sessionId);
      if (ms !== undefined && ms < sweepMs) loop.wakeIn(ms);
    }
  };

  let sweeping: Promise<void> | null = null;
  /** A sweep that sees everything written before the call: one already running may have started earlier. */
  const sweep = async (): Promise<void> => {
    while (sweeping) await sweeping;
    sweeping = (async () => {
      try {
        await store.failExpiredLeases();
        await store.updateWaitingClocks();
        await store.failLongWaiting(config.sessionWaitMs);
        // A recipient put back in the queue after an admin disabled its owner (or revoked the flag).
        await store.failForbidden();
        // A missed `connected` event must not leave an owned session without its loop.
        for (const sessionId of runtime.ownedSessionIds()) ensureLoop(sessionId, false);
        await wakeDueLoops();
      } catch (err) {
        if (!stopped) log.error({ err }, 'dispatcher sweep failed');
      } finally {
        sweeping = null;
      }
    })();
    return sweeping;
  };

  const onQueued = (sessionId: string) => ensureLoop(sessionId);
  const onConnected = (sessionId: string) => ensureLoop(sessionId);
  const onDisconnected = (sessionId: string) => loops.get(sessionId)?.wake();
  runtime.on('connected', onConnected);
  runtime.on('disconnected', onDisconnected);
  const unsubscribe = await onSignal(ctx, 'recipients-queued', onQueued);

  const sweepTimer = setInterval(() => {
    if (!sweeping) void sweep();
  }, sweepMs);
  const receiptTimer = setInterval(() => void flushReceipts(), RECEIPT_FLUSH_MS);
  void sweep();

  return {
    sweep,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      clearInterval(sweepTimer);
      clearInterval(receiptTimer);
      runtime.off('connected', onConnected);
      runtime.off('disconnected', onDisconnected);
      await unsubscribe();
      for (const loop of loops.values()) loop.stop();
      // A send that hangs must not hold up shutdown: its lease makes it 'delivery unknown' later.
      const stopTimeout = new Promise<void>((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref());
      await Promise.race([Promise.all([...loops.values()].map((l) => l.done)), stopTimeout]);
      await sweeping;
      await flushReceipts();
    },
  };
}
