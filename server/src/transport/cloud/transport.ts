import { EventEmitter } from 'node:events';
import { CLOUD_TEXTS, chatIdOfPhone, FAILURE_TEXTS, isGroupJid } from '@wa/contract';
import type { FastifyBaseLogger } from 'fastify';
import {
  type OutgoingMessage,
  SendError,
  type SendResult,
  type Transport,
  type TransportAccount,
  type TransportCapabilities,
  type TransportEventMap,
  type TransportState,
} from '../types.ts';
import type { GraphClient, PhoneNumberInfo } from './graph-client.ts';
import { GRAPH_ERROR, GraphApiError } from './graph-errors.ts';
import { cloudRecipient } from './messages.ts';
import { CLOUD_PROVIDER } from './provider.ts';
import {
  createThroughputLimiter,
  DEFAULT_MESSAGES_PER_SECOND,
  type ThroughputLimiter,
} from './throughput-limiter.ts';
import { DAY_MS, tierLimit } from './tier-counter.ts';
import { type MessagingLimit, memoryMessagingLimit } from './tier-pool.ts';

/** Meta's per-user marketing limit (131049): wait at least 24 hours before sending that user another marketing template. */
export const RETRY_AFTER_MS = DAY_MS;
/** How long the number pauses after Meta's 130429 (throughput), doubling while it repeats, up to a minute. */
const BACKOFF_START_MS = 1000;
const BACKOFF_MAX_MS = 60_000;
/** Meta's pair rate limit (131056): about one message per 6 s to one user (Throughput page). */
const PAIR_RATE_WAIT_MS = 6000;

export type CloudTransportOptions = {
  client: GraphClient;
  phoneNumberId: string;
  log: FastifyBaseLogger;
  /** Messages a second (80 by default; 1,000 for a number Meta upgraded). */
  perSecond?: number;
  /** The number's pace (default: a limiter of `perSecond`); the bench passes one that records its starts. */
  limiter?: ThroughputLimiter;
  /** The account's messaging limit tier as last stored; the counter starts from it. */
  tier: string | null;
  /**
   * The count of the business's messaging limit, shared by its numbers (tier-pool.ts); default:
   * one of this transport's own, in memory.
   */
  messagingLimit?: MessagingLimit;
  /**
   * Whether the person (digits) stopped marketing messages from this business and the template
   * is a marketing one (Meta would answer 131050). Default: never.
   */
  marketingStopped?(to: string, template: { name: string; language: string }): Promise<boolean>;
  /** Meta answered 131050 for this person (digits): they stopped marketing messages from this business. */
  onMarketingStopped?(to: string): Promise<void>;
  /** Whether the number (digits) has written to the account in the last 24 hours (its customer service window is open). */
  inServiceWindow(to: string): Promise<boolean>;
  /** What Meta said of the number at connect (quality, tier), for any node to read. */
  onPhoneInfo(info: PhoneNumberInfo): Promise<void>;
  /** How often the token is checked again while nothing is sent (default 15 min). */
  healthCheckMs?: number;
  now?: () => number;
};

/**
 * How long Meta may take to answer a send while the number still sends at its throughput: the
 * engine keeps `perSecond` × this many sends in flight (Little's law), so that a number on
 * STANDARD (80 a second) has 20 and one on HIGH (1,000) has 250. With fewer, the number's rate is
 * lanes ÷ Meta's answer time, whatever its throughput: 8 lanes and 100 ms give 80 a second, never
 * 1,000 (`BENCH_ONLY=cloudhigh npm run bench`). The limiter still holds every second to perSecond.
 */
const ANSWER_MS = 250;

/** The sends a number paced at `perSecond` keeps in flight. */
export const sendsInFlight = (perSecond: number) => Math.max(1, Math.ceil((perSecond * ANSWER_MS) / 1000));

/**
 * A Cloud API number as a Transport: no socket; "open" means Meta answers `GET
 * /{phone-number-id}` with the account's token. Sends are `POST /{phone-number-id}/messages`,
 * paced by the number's throughput (throughput-limiter.ts) and held to its messaging limit tier
 * (tier-counter.ts); statuses and replies arrive by webhook (the route, not this class).
 */
export class CloudTransport extends EventEmitter<TransportEventMap> implements Transport {
  readonly accountId: string;
  state: TransportState = 'connecting';
  readonly capabilities: TransportCapabilities;
  private readonly limiter: ThroughputLimiter;
  /** The business's messaging limit, in recipients in 24 hours, as Meta last gave it. */
  private limit: number;
  private readonly messagingLimit: MessagingLimit;
  private readonly now: () => number;
  private health: NodeJS.Timeout | null = null;
  private backoffMs = BACKOFF_START_MS;
  private closed = false;

  constructor(
    account: TransportAccount,
    private readonly options: CloudTransportOptions,
  ) {
    super();
    this.accountId = account.accountId;
    this.now = options.now ?? Date.now;
    const perSecond = options.limiter?.perSecond ?? options.perSecond ?? DEFAULT_MESSAGES_PER_SECOND;
    this.limiter = options.limiter ?? createThroughputLimiter({ perSecond });
    this.capabilities = { ...CLOUD_PROVIDER.capabilities, concurrentSends: sendsInFlight(perSecond) };
    this.limit = tierLimit(options.tier);
    this.messagingLimit = options.messagingLimit ?? memoryMessagingLimit([], this.now);
  }

  async connect(): Promise<void> {
    this.closed = false;
    this.state = 'connecting';
    this.emit('connection', { state: 'connecting' });
    await this.check(true);
    if (this.closed) return;
    this.health ??= setInterval(() => void this.check(false), this.options.healthCheckMs ?? 15 * 60_000);
    this.health.unref();
  }

  /** Asks Meta for the number: open while the token works, closed with Meta's text when it stops. */
  private async check(first: boolean): Promise<void> {
    let info: PhoneNumberInfo;
    try {
      info = await this.options.client.getPhoneNumber(this.options.phoneNumberId);
    } catch (err) {
      const e = err instanceof GraphApiError ? err : null;
      const temporary = !e || e.errorClass === 'network' || e.errorClass === 'backoff';
      if (temporary && !first) return; // the next check or send tells
      this.closeWith(`Meta: ${e?.message ?? String(err)}`, temporary);
      return;
    }
    await this.options
      .onPhoneInfo(info)
      .catch((err) => this.options.log.warn({ err }, 'storing phone info failed'));
    this.limit = tierLimit(info.messagingLimitTier);
    if (this.state !== 'open') {
      this.state = 'open';
      this.emit('connection', {
        state: 'open',
        jid: chatIdOfPhone(digitsOf(info.displayPhoneNumber)),
        lid: null,
      });
    }
  }

  private closeWith(reason: string, willReconnect: boolean): void {
    if (this.health) clearInterval(this.health);
    this.health = null;
    this.state = 'closed';
    this.emit('connection', { state: 'closed', reason, loggedOut: false, willReconnect: false });
    if (willReconnect) {
      // Meta did not answer: try again shortly, as a socket would reconnect.
      setTimeout(() => {
        if (!this.closed) void this.connect();
      }, 5000).unref();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.health) clearInterval(this.health);
    this.health = null;
    this.state = 'closed';
  }

  /** The Cloud API has no contact check: every number is sent to; one not on WhatsApp fails as 131026 (refunded). */
  async onWhatsApp(phoneNumbers: string[]): Promise<Map<string, string | null>> {
    return new Map(phoneNumbers.map((p) => [p, chatIdOfPhone(p.replace(/\D/g, ''))]));
  }

  async send(chatId: string, message: OutgoingMessage): Promise<SendResult> {
    if (this.state !== 'open') throw new SendError('not-connected', 'The Cloud API account is not connected');
    if (isGroupJid(chatId)) throw new SendError('invalid', 'Groups are available for linked phones only');
    let to: string;
    try {
      to = cloudRecipient(chatId);
    } catch (err) {
      throw new SendError('invalid', (err as Error).message);
    }
    const isTemplate = message.kind === 'template';
    // A person who stopped marketing messages from this business gets no marketing template (Meta
    // would refuse it with 131050); utility and authentication templates and texts still go.
    if (
      message.kind === 'template' &&
      (await this.options.marketingStopped?.(to, { name: message.name, language: message.language }))
    )
      throw new SendError('invalid', FAILURE_TEXTS.marketingStopped);
    // Free-form messages only inside the number's customer service window (Meta, "Service messages":
    // outside it only templates; Meta would answer 131047). Checked here too: the window may close
    // between acceptance and the send, and a spread's failover may move a text here. Not sent, refunded.
    if (!isTemplate && !(await this.options.inServiceWindow(to)))
      throw new SendError('invalid', CLOUD_TEXTS.windowClosed);
    // Only template sends open conversations that count toward the tier (Messaging limits page).
    // Counted before the send (two concurrent sends cannot both take the last place); a failed send keeps its place: conservative.
    if (isTemplate) {
      const reserved = await this.messagingLimit.reserve(to, this.limit);
      if (!reserved.ok)
        throw new SendError(
          'rate-limited',
          `Waiting: the account's limit of ${this.limit.toLocaleString('en-IN')} recipients in 24 hours is reached`,
          reserved.until,
        );
    }
    await this.limiter.acquire();
    const { client, phoneNumberId } = this.options;
    try {
      let accepted: Awaited<ReturnType<GraphClient['sendText']>>;
      if (message.kind === 'template') {
        accepted = await client.sendTemplate(phoneNumberId, to, {
          name: message.name,
          language: message.language,
          bodyParameters: message.parameters,
          ...(message.parameterNames ? { parameterNames: message.parameterNames } : {}),
        });
      } else if (message.kind === 'text') {
        accepted = await client.sendText(phoneNumberId, to, message.text);
      } else {
        throw new SendError('invalid', 'A Cloud API account sends templates and texts only');
      }
      this.backoffMs = BACKOFF_START_MS;
      return { messageId: accepted.messageId };
    } catch (err) {
      if (err instanceof GraphApiError) throw await this.sendErrorOf(err, to);
      throw err;
    }
  }

  /** Meta's error as the engine's SendError (graph-errors.ts decides the class from the code). */
  private async sendErrorOf(err: GraphApiError, to: string): Promise<SendError> {
    const now = this.now();
    if (err.code === GRAPH_ERROR.marketingStopped) {
      // Never retried: the person said no to this business's marketing (error-code page, 131050).
      await this.options.onMarketingStopped?.(to);
      return new SendError('invalid', FAILURE_TEXTS.marketingStopped);
    }
    switch (err.errorClass) {
      case 'retryAfter24h':
        return new SendError('retry-later', err.title, new Date(now + RETRY_AFTER_MS));
      case 'backoff': {
        if (err.code === 131056)
          return new SendError('rate-limited', err.title, new Date(now + PAIR_RATE_WAIT_MS));
        const wait = this.backoffMs;
        this.backoffMs = Math.min(BACKOFF_MAX_MS, this.backoffMs * 2);
        this.limiter.pauseUntil(performance.now() + wait);
        return new SendError('rate-limited', err.title, new Date(now + wait));
      }
      case 'auth':
        this.closeWith(`Meta: ${err.message}`, false);
        return new SendError('not-connected', err.message);
      case 'network':
        // The message may or may not have gone: never re-sent automatically.
        return new SendError('timeout', `Delivery unknown: ${err.message}`);
      default:
        return new SendError('invalid', err.title);
    }
  }
}

const digitsOf = (display: string) => display.replace(/\D/g, '');
