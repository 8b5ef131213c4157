import { chatIdOfPhone } from '@wa/contract';
import type { AccountRuntime, AccountRuntimeEvents } from '../accounts/runtime.ts';
import type { AppContext } from '../context.ts';
import { type AnswerBack, type TakenOutcome, takeOutcomes } from './outcomes.ts';

/** How often the outcomes of this node's accounts are taken, as one batch. */
const FLUSH_MS = 250;
/**
 * A receipt or a refusal can arrive before its send is recorded (the recipient has no message id
 * yet): it is tried again every 2 s for a minute. Receipts of messages sent outside the console
 * never match; at most this many wait.
 */
const UNMATCHED_RETRY_MS = 2000;
const UNMATCHED_KEEP_MS = 60_000;
const UNMATCHED_MAX = 10_000;

export interface OutcomeBatches {
  /** Takes what came back so far now (the timer does it every 250 ms). */
  flush(): Promise<void>;
  /** Stops listening, after taking what came back. */
  stop(): Promise<void>;
}

/**
 * What this node's accounts report (a linked phone's or the simulator's socket: receipts,
 * refusals after the send, messages people write), taken through the engine's one door for
 * outcomes (outcomes.ts) in batches: every account's receipts of the last 250 ms in one statement.
 * A refusal or a message someone wrote is taken at once. What matched no recipient yet is kept
 * and tried again. An opt-out's confirmation is answered through the account's own transport.
 */
export function startOutcomeBatches(ctx: AppContext, runtime: AccountRuntime): OutcomeBatches {
  const { log } = ctx;
  let pending: TakenOutcome[] = [];
  /** Outcomes no recipient matched yet, with when they first arrived. */
  let unmatched: Array<{ taken: TakenOutcome; since: number }> = [];
  let lastRetry = 0;

  // A confirmation that cannot go (the socket closed meanwhile) is logged: the opt-out stands, and
  // the rest of the batch is taken.
  const answer: AnswerBack = async ({ accountId }, to, text) => {
    const transport = runtime.transportFor(accountId);
    if (!transport) return;
    await transport
      .send(to.includes('@') ? to : chatIdOfPhone(to), { kind: 'text', text })
      .catch((err: unknown) => log.error({ err, accountId }, 'an opt-out confirmation could not be sent'));
  };

  let flushing: Promise<void> | null = null;
  const flush = (): Promise<void> => {
    flushing ??= flushOnce().finally(() => {
      flushing = null;
    });
    return flushing;
  };
  const flushOnce = async (): Promise<void> => {
    const now = Date.now();
    const retry = now - lastRetry >= UNMATCHED_RETRY_MS;
    if (retry) lastRetry = now;
    const waiting = retry ? unmatched : [];
    if (retry) unmatched = [];
    if (pending.length === 0 && waiting.length === 0) return;
    const batch = [...waiting.map((w) => w.taken), ...pending];
    const since = new Map<TakenOutcome, number>(waiting.map((w) => [w.taken, w.since]));
    pending = [];
    const left = await takeOutcomes(ctx, batch, { by: null, answer }).catch((err: unknown) => {
      log.error({ err }, 'taking what the accounts reported failed');
      return [] as TakenOutcome[];
    });
    for (const taken of left) {
      const first = since.get(taken) ?? now;
      if (now - first < UNMATCHED_KEEP_MS && unmatched.length < UNMATCHED_MAX)
        unmatched.push({ taken, since: first });
    }
  };

  const onOutcome: (...args: AccountRuntimeEvents['outcome']) => void = (accountId, userId, outcome) => {
    pending.push({ account: { accountId, userId }, outcome });
    if (outcome.type !== 'receipt') void flush();
  };
  runtime.on('outcome', onOutcome);
  const timer = setInterval(() => void flush(), FLUSH_MS);

  return {
    flush,
    stop: async () => {
      clearInterval(timer);
      runtime.off('outcome', onOutcome);
      await flushing;
      await flush();
    },
  };
}
