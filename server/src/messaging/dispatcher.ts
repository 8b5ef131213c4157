import type { AppContext } from '../context.ts';
import { addCredits } from '../credits/credits.ts';
import type { SessionRuntime } from '../sessions/runtime.ts';
import { type OutgoingMessage, SendError, type Transport } from '../transport/types.ts';
import * as repo from './repository.ts';
import { JOB_MESSAGES, recipientLeaseMs, refundFailures } from './service.ts';
import { RECIPIENTS_QUEUED_CHANNEL } from './wake.ts';

export const DISPATCH_MESSAGES = {
  notConnected: 'Session is not connected',
  notOnWhatsApp: 'Not on WhatsApp',
  interrupted: JOB_MESSAGES.interrupted,
} as const;

export type DispatcherOptions = {
  /** Fallback poll when no signal arrives (a lost NOTIFY, a clock edge). */
  pollMs?: number;
  /** How often leases, waiting sessions and owned sessions are checked. */
  sweepMs?: number;
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
 * Sends the due recipients of the sessions this node owns: one loop per owned, connected
 * session, one message at a time, paced; every outcome recorded with its job counters and
 * refund in one transaction. A sweeper fails what can no longer be sent: sends whose lease ran
 * out (a node died mid-send) and recipients that waited too long for their session.
 */
export async function startDispatcher(
  ctx: AppContext,
  runtime: SessionRuntime,
  options: DispatcherOptions = {},
): Promise<Dispatcher> {
  const { config, db, log, nodeId } = ctx;
  const pollMs = options.pollMs ?? 2000;
  const sweepMs = options.sweepMs ?? Math.max(100, Math.min(1000, Math.floor(config.sessionWaitMs / 5)));
  const leaseMs = recipientLeaseMs(config);
  // Paced, the next recipient is claimed after the pause, so no lease is held while waiting.
  const paced = config.sendDelayMaxMs > 0;

  const loops = new Map<string, SessionLoop>();
  const receipts = new Map<string, repo.Receipt[]>();
  let stopped = false;

  const delay = () =>
    config.sendDelayMinMs + Math.floor(Math.random() * (config.sendDelayMaxMs - config.sendDelayMinMs + 1));

  class SessionLoop {
    private wakeUp: (() => void) | null = null;
    private woken = false;
    private stopping = false;
    private transport: Transport | undefined;
    private readonly messages = new Map<string, OutgoingMessage | null>();
    readonly done: Promise<void>;

    constructor(
      readonly sessionId: string,
      previous: Promise<void> | undefined,
    ) {
      this.done = (async () => {
        // One loop per session on this node: a new one starts after the old one has recorded its last send.
        await previous;
        try {
          await this.run();
        } catch (err) {
          log.error({ err, sessionId }, 'dispatcher loop failed');
        } finally {
          // From here a `connected` event starts a new loop instead of waking this one.
          this.stopping = true;
          this.detach();
          if (loops.get(sessionId) === this) loops.delete(sessionId);
        }
      })();
    }

    get active(): boolean {
      return !this.stopping && !stopped;
    }

    wake(): void {
      this.woken = true;
      this.wakeUp?.();
    }

    stop(): void {
      this.stopping = true;
      this.wake();
    }

    /** Waits `ms`, or less when woken or stopped. */
    private async pause(ms: number): Promise<void> {
      if (ms <= 0 || !this.active) return;
      if (this.woken) {
        this.woken = false;
        return;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = null;
      this.woken = false;
    }

    /** Waits the full pace delay: only a stop cuts it short, a new job does not. */
    private async pace(until: number): Promise<void> {
      while (this.active && Date.now() < until) {
        await this.pause(until - Date.now());
      }
    }

    /** Receipts come from the transport; WhatsApp's quota event is the session runner's to act on. */
    private attach(transport: Transport): void {
      if (this.transport === transport) return;
      this.detach();
      this.transport = transport;
      transport.on('receipt', this.onReceipt);
    }

    private detach(): void {
      this.transport?.off('receipt', this.onReceipt);
      this.transport = undefined;
    }

    private readonly onReceipt = (r: { messageId: string; status: 'delivered' | 'read'; at: Date }) => {
      let list = receipts.get(this.sessionId);
      if (!list) {
        list = [];
        receipts.set(this.sessionId, list);
      }
      list.push({ messageId: r.messageId, status: r.status, at: r.at });
    };

    private async run(): Promise<void> {
      const { sessionId } = this;
      // This node holds the session's lease now: a send another node left `sending` lost its
      // sender (crash or cut-off). Its delivery is unknown, so it fails and is refunded, never re-sent.
      await this.recoverForeignClaims();
      let nextSendAt = 0;
      // Unpaced, recording a sent message also claims the next one (one statement per message).
      let next: repo.ClaimedRecipient | null = null;
      try {
        while (this.active) {
          const transport = runtime.transportFor(sessionId);
          if (!transport) return;
          this.attach(transport);
          if (paced) await this.pace(nextSendAt);
          if (!this.active) return;

          let r = next;
          next = null;
          if (!r) {
            try {
              [r = null] = await repo.claimDueRecipients(db, sessionId, nodeId, 1, leaseMs);
            } catch (err) {
              log.error({ err, sessionId }, 'claiming recipients failed');
              await this.pause(pollMs);
              continue;
            }
          }
          if (!r) {
            const due = await repo.msUntilNextDue(db, sessionId).catch(() => null);
            // A due recipient that was not claimed means the queue is paused: wait for a poll.
            await this.pause(due === null || due === 0 ? pollMs : Math.min(due, pollMs));
            continue;
          }
          const outcome = await this.sendOne(transport, r, !paced);
          nextSendAt = Date.now() + delay();
          if (typeof outcome === 'object') next = outcome.next;
          else if (outcome === 'session-down') await this.pause(pollMs);
        }
      } finally {
        // Claimed but never handed to the transport: back to the queue, nothing is lost or unknown.
        if (next) await repo.releaseClaims(db, nodeId, [next.id]).catch(() => {});
      }
    }

    private async recoverForeignClaims(): Promise<void> {
      for (;;) {
        const groups = await db.transaction(async (tx) => {
          const g = await repo.failForeignClaims(tx, this.sessionId, nodeId, DISPATCH_MESSAGES.interrupted);
          await refundFailures(tx, g, DISPATCH_MESSAGES.interrupted);
          return g;
        });
        if (groups.length === 0) return;
        log.warn(
          { sessionId: this.sessionId, jobs: groups },
          'sends interrupted by a lost node marked failed',
        );
      }
    }

    private async messageFor(jobId: string): Promise<OutgoingMessage | null> {
      if (this.messages.has(jobId)) return this.messages.get(jobId)!;
      const job = await repo.findJob(db, jobId);
      let message: OutgoingMessage | null = null;
      if (job) {
        if (job.messageType === 'text') message = { kind: 'text', text: job.content };
        else if (job.messageType === 'poll') {
          const poll = job.poll ?? JSON.parse(job.content);
          message = {
            kind: 'poll',
            name: poll.pollName,
            options: poll.pollOptions,
            allowMultipleAnswers: poll.options?.allowMultipleAnswers === true,
          };
        } else {
          const file = job.mediaId ? await repo.findMedia(db, job.mediaId) : undefined;
          if (file) {
            message = {
              kind: 'media',
              mime: job.mediaMime ?? file.mime,
              data: file.bytes,
              fileName: job.fileName,
              caption: job.content,
            };
          }
        }
      }
      // Keep few: a media job holds up to 16 MB.
      if (this.messages.size >= 4) this.messages.clear();
      this.messages.set(jobId, message);
      return message;
    }

    /**
     * Sends one claimed recipient and records the outcome. With `claimNext`, a successful
     * record also claims the session's next due recipient and returns it.
     */
    private async sendOne(
      transport: Transport,
      r: repo.ClaimedRecipient,
      claimNext: boolean,
    ): Promise<{ next: repo.ClaimedRecipient | null } | 'failed' | 'paused' | 'session-down'> {
      const { sessionId } = this;
      const message = await this.messageFor(r.jobId);
      if (!message) {
        await this.fail(r, 'Message content is missing');
        return 'failed';
      }
      let messageId: string;
      try {
        ({ messageId } = await transport.send(r.chatId, message));
      } catch (err) {
        if (err instanceof SendError && err.code === 'not-connected') {
          // The transport refused before sending anything: the recipient waits for the session.
          await repo.releaseClaims(db, nodeId, [r.id]);
          return 'session-down';
        }
        if (err instanceof SendError && err.pausesSession) {
          await this.fail(r, err.message);
          await repo.pauseSessionQueue(db, sessionId, err.message);
          log.warn({ sessionId, code: err.code, reason: err.message }, 'session queue paused');
          return 'paused';
        }
        const reason =
          err instanceof SendError
            ? err.code === 'not-on-whatsapp'
              ? DISPATCH_MESSAGES.notOnWhatsApp
              : err.message
            : `Send failed: ${(err as Error).message ?? String(err)}`;
        await this.fail(r, reason);
        return 'failed';
      }
      try {
        if (claimNext && this.active) {
          const result = await repo.recordSentAndClaimNext(db, r.id, nodeId, messageId, {
            sessionId,
            leaseMs,
          });
          return { next: result.next };
        }
        await repo.recordSent(db, r.id, nodeId, messageId);
      } catch (err) {
        // Left `sending`: its lease runs out and it fails as 'delivery unknown', never re-sent.
        log.error({ err, sessionId, recipient: r.id }, 'recording a sent message failed');
      }
      return { next: null };
    }

    private async fail(r: repo.ClaimedRecipient, error: string): Promise<void> {
      try {
        await db.transaction(async (tx) => {
          const job = await repo.markFailed(tx, r.id, nodeId, error);
          if (job) await addCredits(tx, job.userId, 1, 'refund', { jobId: job.jobId, note: error });
        });
      } catch (err) {
        log.error({ err, sessionId: this.sessionId, recipient: r.id }, 'recording a failed send failed');
      }
    }
  }

  /** Starts the session's loop if it has none; `wake` also rouses a running one (new work). */
  const ensureLoop = (sessionId: string, wake = true) => {
    if (stopped) return;
    const existing = loops.get(sessionId);
    if (existing?.active) {
      if (wake) existing.wake();
      return;
    }
    if (!runtime.transportFor(sessionId)) return;
    loops.set(sessionId, new SessionLoop(sessionId, existing?.done));
  };

  const onQueued = (sessionId: string) => ensureLoop(sessionId);

  const flushReceipts = async () => {
    for (const [sessionId, list] of receipts) {
      receipts.delete(sessionId);
      await repo
        .applyReceipts(db, sessionId, list)
        .catch((err) => log.error({ err, sessionId }, 'recording receipts failed'));
    }
  };

  let sweeping: Promise<void> | null = null;
  /** A sweep that sees everything written before the call: one already running may have started earlier. */
  const sweep = async (): Promise<void> => {
    while (sweeping) await sweeping;
    sweeping = (async () => {
      try {
        await db.transaction(async (tx) => {
          const g = await repo.failExpiredLeases(tx, DISPATCH_MESSAGES.interrupted);
          await refundFailures(tx, g, DISPATCH_MESSAGES.interrupted);
        });
        await repo.updateWaitingClocks(db);
        await db.transaction(async (tx) => {
          const g = await repo.failLongWaiting(tx, config.sessionWaitMs, DISPATCH_MESSAGES.notConnected);
          await refundFailures(tx, g, DISPATCH_MESSAGES.notConnected);
        });
        // A missed `connected` event must not leave an owned session without its loop.
        for (const sessionId of runtime.ownedSessionIds()) ensureLoop(sessionId, false);
      } catch (err) {
        if (!stopped) log.error({ err }, 'dispatcher sweep failed');
      } finally {
        sweeping = null;
      }
    })();
    return sweeping;
  };

  const onConnected = (sessionId: string) => ensureLoop(sessionId);
  const onDisconnected = (sessionId: string) => loops.get(sessionId)?.wake();
  runtime.on('connected', onConnected);
  runtime.on('disconnected', onDisconnected);
  ctx.events.on('recipients-queued', onQueued);
  const unlisten =
    ctx.database.kind === 'postgres'
      ? await ctx.database.listen(RECIPIENTS_QUEUED_CHANNEL, onQueued).catch((err) => {
          log.warn({ err }, 'LISTEN failed: other nodes reach this one by polling only');
          return null;
        })
      : null;

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
      ctx.events.off('recipients-queued', onQueued);
      await unlisten?.();
      for (const loop of loops.values()) loop.stop();
      // A send that hangs must not hold up shutdown: its lease makes it 'delivery unknown' later.
      const stopTimeout = new Promise<void>((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref());
      await Promise.race([Promise.all([...loops.values()].map((l) => l.done)), stopTimeout]);
      await sweeping;
      await flushReceipts();
    },
  };
}
