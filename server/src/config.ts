import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { PGLITE_SHARED_BUFFERS_DEFAULT } from './db/pglite-settings.ts';
import { ConfigError } from './errors.ts';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const int = (min: number, max: number) =>
  z.coerce
    .number({ error: `a whole number from ${min} to ${max}` })
    .int(`a whole number from ${min} to ${max}`)
    .min(min, `a whole number from ${min} to ${max}`)
    .max(max, `a whole number from ${min} to ${max}`);

/** An address or an address range in CIDR notation (IPv4 or IPv6). */
function isAddressOrRange(text: string): boolean {
  const [address, prefix, ...rest] = text.split('/');
  const family = net.isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^[0-9]{1,3}$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}

/**
 * Which proxies may tell us the client's address (X-Forwarded-For) and protocol: none
 * (`false`, the default), every hop (`true`), the last N hops (a number), or the listed
 * addresses and CIDR ranges (comma-separated).
 */
const trustProxy = z
  .string()
  .trim()
  .transform((v, ctx): boolean | number | string[] => {
    const lower = v.toLowerCase();
    if (['false', 'off', 'no', '0'].includes(lower)) return false;
    if (['true', 'on', 'yes'].includes(lower)) return true;
    if (/^[0-9]{1,2}$/.test(v)) return Number(v);
    const ranges = v
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean);
    if (ranges.length > 0 && ranges.every(isAddressOrRange)) return ranges;
    ctx.addIssue({
      code: 'custom',
      message: 'false, true, a hop count, or comma-separated addresses or CIDR ranges',
    });
    return z.NEVER;
  });

/** WhatsApp's own chat socket, what Baileys connects to by default (rc14 Defaults/index.js). */
export const WHATSAPP_WS_URL = 'wss://web.whatsapp.com/ws/chat';

/** True for a host on this machine: the only place a WhatsApp emulator may be trusted. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || (net.isIPv4(host) && host.startsWith('127.'));
}

/** WhatsApp's URL, or a ws(s):// URL on a loopback address (the wire-level emulator of wa-emulator/). */
const waWsUrl = z
  .string()
  .trim()
  .refine((v) => {
    if (v === WHATSAPP_WS_URL) return true;
    try {
      const url = new URL(v);
      return (url.protocol === 'ws:' || url.protocol === 'wss:') && isLoopbackHost(url.hostname);
    } catch {
      return false;
    }
  }, `${WHATSAPP_WS_URL} or a ws:// URL on a loopback address (an emulator)`);

/**
 * Meta's Graph API with the version this build was written against: v24.0, the first that gives a
 * number's messaging limit as the business portfolio's `whatsapp_business_manager_messaging_limit`
 * (Messaging Limits page, developers.facebook.com/documentation/business-messaging/whatsapp/messaging-limits).
 */
export const CLOUD_API_BASE_URL = 'https://graph.facebook.com/v24.0';

/**
 * Meta's Graph API at any version (`https://graph.facebook.com/v25.0`, when Meta retires v24.0),
 * or an http(s):// URL on a loopback address (the fake Graph API of the tests and the demo). Any
 * other host is refused: the access tokens and app secrets of Cloud accounts go to it.
 */
const cloudApiBaseUrl = z
  .string()
  .trim()
  .refine((v) => {
    try {
      const url = new URL(v);
      if (url.search || url.hash || url.username || url.password) return false;
      if (url.protocol === 'https:' && url.host === 'graph.facebook.com') {
        return /^\/v[0-9]{1,3}\.[0-9]{1,2}\/?$/.test(url.pathname);
      }
      return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname);
    } catch {
      return false;
    }
  }, `${CLOUD_API_BASE_URL} (any version) or an http:// URL on a loopback address (a fake Graph API)`)
  .transform((v) => v.replace(/\/+$/, ''));

const EnvSchema = z.object({
  PORT: int(0, 65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  PGLITE_SHARED_BUFFERS: z
    .string()
    .regex(/^[1-9][0-9]*(kB|MB|GB)$/, 'a size such as 32MB (kB, MB or GB)')
    .default(PGLITE_SHARED_BUFFERS_DEFAULT),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'a postgres:// or postgresql:// URL')
    .optional(),
  WA_PROVIDER: z.enum(['baileys', 'simulator'], { error: 'baileys or simulator' }).default('baileys'),
  WA_VERSION: z
    .string()
    .trim()
    .regex(/^2\.3000\.[1-9][0-9]{0,11}$/, 'a WhatsApp Web version such as 2.3000.1043857760')
    .optional(),
  WA_WS_URL: waWsUrl.optional(),
  /** 'Test proxy' asks this URL (answering JSON { ip }) through the proxy for the exit address. */
  PROXY_ECHO_URL: z.url().optional(),
  WA_EMULATOR_ROOT_KEY: z
    .string()
    .trim()
    .regex(
      /^[0-9a-fA-F]{64}(:[0-9]{1,9})?$/,
      "an emulator's root public key: 64 hex digits, optionally :serial",
    )
    .optional(),
  CLOUD_API_BASE_URL: cloudApiBaseUrl.default(CLOUD_API_BASE_URL),
  ROLE: z.enum(['all', 'api', 'worker'], { error: 'all, api or worker' }).default('all'),
  ADMIN_USERNAME: z
    .string()
    .regex(/^[A-Za-z0-9._-]{3,50}$/, '3 to 50 letters, digits, dots, dashes or underscores')
    .default('admin'),
  ADMIN_PASSWORD: z.string().min(8, 'at least 8 characters').optional(),
  SIGNUP_ENABLED: bool.default(false),
  DEFAULT_COUNTRY_CODE: z
    .string()
    .regex(/^[1-9][0-9]{0,3}$/, '1 to 4 digits, e.g. 91')
    .default('91'),
  SEND_DELAY_MIN_MS: int(0, 3_600_000).default(3000),
  SEND_DELAY_MAX_MS: int(0, 3_600_000).default(8000),
  /** Warm-up of new accounts (docs/decisions.md, Sending policy per account): on with the real provider, off with the simulator, unless set. */
  WARM_UP_DEFAULT: bool.optional(),
  SESSION_WAIT_MS: int(0, 86_400_000).default(600_000),
  FAILOVER_AFTER_MS: int(0, 86_400_000).default(120_000),
  SEND_TIMEOUT_MS: int(1000, 3_600_000).default(60_000),
  UNDELIVERED_AFTER_MS: int(1000, 30 * 86_400_000).default(86_400_000),
  ERASURE_COMPACT_MS: int(1000, 30 * 86_400_000).default(86_400_000),
  RATE_LIMIT_PAUSE_MS: int(1000, 3_600_000).default(60_000),
  RESTRICTION_RETRY_MS: int(1000, 86_400_000).default(15 * 60_000),
  LOOKUP_BATCH_SIZE: int(1, 500).default(50),
  LOOKUP_SPACING_MS: int(0, 600_000).default(3000),
  /** How often a node scores the health of the accounts it drives (the breaker acts then). */
  HEALTH_CHECK_MS: int(1000, 3_600_000).default(60_000),
  /**
   * How long after an account's last write (an outcome, a verdict, a reply, an event, a STOP) the
   * health check still evaluates it again: a write whose transaction began before an evaluation
   * read its signals carries an earlier time than the evaluation.
   */
  HEALTH_MARGIN_MS: int(1000, 3_600_000).default(60_000),
  /** How long the breaker's pause lasts unless the user resumes sooner. */
  HEALTH_COOLING_MS: int(60_000, 7 * 86_400_000).default(86_400_000),
  SESSION_LEASE_MS: int(1000, 3_600_000).default(30_000),
  TOKEN_TTL_HOURS: int(1, 24 * 365).default(24 * 7),
  LOGIN_RATE_LIMIT: int(1, 10_000).default(10),
  LOGIN_IP_FAILURE_LIMIT: int(1, 1_000_000).default(50),
  TRUST_PROXY: trustProxy.default(false),
  SECRET_KEY: z
    .string()
    .regex(
      /^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/,
      '32 bytes as 64 hex digits or base64 (openssl rand -hex 32)',
    )
    .optional(),
  REQUIRE_ADMIN_2FA: bool.default(false),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'fatal, error, warn, info, debug, trace or silent',
    })
    .default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty'], { error: 'json or pretty' }).optional(),
  METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  ALLOW_PRIVATE_WEBHOOKS: bool.default(false),
  ALLOW_PRIVATE_PROXIES: bool.default(false),
  WEBHOOK_RETRY_BASE_MS: int(100, 3_600_000).default(10_000),
  WEBHOOK_TIMEOUT_MS: int(1000, 60_000).default(5000),
  /** Replies that opt a number out (docs/decisions.md, Opt-outs), comma-separated, any case. */
  OPT_OUT_KEYWORDS: z
    .string()
    .default('STOP,UNSUBSCRIBE,STOP ALL')
    .transform((v) =>
      v
        .split(',')
        .map((k) => k.trim().toUpperCase())
        .filter((k) => k !== ''),
    )
    .refine((list) => list.length > 0, 'at least one keyword'),
  WEB_DIST_DIR: z.string().optional(),
  SIMULATOR_LINK_AFTER_MS: int(0, 3_600_000).default(8000),
  SIMULATOR_GROUPS: int(0, 100_000).default(12),
  SIMULATOR_SEND_LATENCY_MS: int(0, 60_000).default(150),
  SIMULATOR_OUTBOX_FILE: z.string().optional(),
  DEMO: bool.default(false),
  DEMO_DATA_DIR: z.string().min(1).default('./data-demo'),
});

export type Config = {
  port: number;
  host: string;
  dataDir: string;
  /** PostgreSQL's shared_buffers inside the embedded database: resident from the start. */
  pgliteSharedBuffers: string;
  databaseUrl: string | undefined;
  waProvider: 'baileys' | 'simulator';
  /** The WhatsApp Web client version to announce; unset: the latest published one, else Baileys' own. */
  waVersion: [number, number, number] | undefined;
  /** WA_WS_URL: where Baileys connects; unset: WhatsApp. Only WhatsApp's own or a loopback address. */
  waWsUrl: string | undefined;
  /** PROXY_ECHO_URL: where 'Test proxy' reads the proxy's exit address; unset: not checked. */
  proxyEchoUrl: string | undefined;
  /** WA_EMULATOR_ROOT_KEY: the certificate root the noise handshake trusts instead of WhatsApp's (loopback WA_WS_URL only). */
  waEmulatorRootKey: { publicKey: Buffer; serial: number } | undefined;
  /** CLOUD_API_BASE_URL: Meta's Graph API (Cloud API accounts); only Meta's own or a loopback address. */
  cloudApiBaseUrl: string;
  role: 'all' | 'api' | 'worker';
  adminUsername: string;
  adminPassword: string | undefined;
  signupEnabled: boolean;
  defaultCountryCode: string;
  sendDelayMinMs: number;
  sendDelayMaxMs: number;
  /** Whether an account's policy caps one-to-one messages by days since linking, when it does not say. */
  warmUpDefault: boolean;
  accountWaitMs: number;
  /**
   * How long an account of a job spread over several accounts may be down (disconnected, logged
   * out, banned) before its waiting recipients move to the job's healthy accounts.
   */
  failoverAfterMs: number;
  /** The longest one send (upload included) may take; then its delivery is unknown (failed, refunded). */
  sendTimeoutMs: number;
  /** HEALTH_CHECK_MS and HEALTH_COOLING_MS: the account-health check's period and the breaker's pause. */
  healthCheckMs: number;
  healthCoolingMs: number;
  /** HEALTH_MARGIN_MS: how long after an account's last write its health is evaluated again (accounts/health/repository.ts). */
  healthMarginMs: number;
  /** A sent message with no delivery receipt this long after its send is undelivered. */
  undeliveredAfterMs: number;
  /** Within this long after an erasure, the tables that held the number are rewritten and the WAL moved past it. */
  erasureCompactMs: number;
  /** How long an account sends nothing after WhatsApp answers 429 rate-overlimit. */
  rateLimitPauseMs: number;
  /** A 463 with no end given: new chats are tried again after this, doubled per 463 in a row, up to 32 times it. */
  restrictionRetryMs: number;
  /** A job's numbers are asked whether they are on WhatsApp this many a query, queries this far apart. */
  lookupBatches: { size: number; spacingMs: number };
  accountLeaseMs: number;
  tokenTtlMs: number;
  /** Failed sign-ins (password or code) per account in 15 minutes before it answers 429. */
  loginRateLimit: number;
  /** Failed sign-ins from one client address in 15 minutes before it answers 429 for any username. */
  loginIpFailureLimit: number;
  trustProxy: boolean | number | string[];
  /** 32 bytes that encrypt the WhatsApp auth state; unset: a key file in DATA_DIR (embedded database only). */
  secretKey: Buffer | undefined;
  requireAdmin2fa: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Unset: pretty lines when stdout is a terminal, JSON otherwise. */
  logFormat: 'json' | 'pretty' | undefined;
  /** When set, GET /metrics needs `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** Lets webhooks point at private and loopback addresses (tests, a receiver on the same host). */
  allowPrivateWebhooks: boolean;
  /** Lets an account's proxy be at a private or loopback address (a proxy on this host or network). */
  allowPrivateProxies: boolean;
  /** The first retry of a failed webhook call waits this long, doubling each time (at most an hour). */
  webhookRetryBaseMs: number;
  /** How long a webhook call may take to answer; its rows are claimed for three times that. */
  webhookTimeoutMs: number;
  optOutKeywords: string[];
  webDistDir: string;
  simulator: { linkAfterMs: number; groups: number; sendLatencyMs: number; outboxFile: string | undefined };
  demo: boolean;
  /** Where `npm run demo` keeps its own embedded database (never the real one). */
  demoDataDir: string;
};

/**
 * The repository's root: the first directory above this module that holds server/package.json
 * (this file runs from server/src, or from a chunk of the bundle in server/dist/chunks).
 */
function findRepoRoot(): string {
  for (let dir = import.meta.dirname; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'server', 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(import.meta.dirname, '../..');
  }
}
const repoRoot = findRepoRoot();

/** Reads and validates the environment once. Throws a ConfigError whose message is one line naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0]);
    throw new ConfigError(
      `Invalid ${name}=${JSON.stringify(cleaned[name] ?? '')}: expected ${issue.message}`,
    );
  }
  const e = parsed.data;
  if (e.SEND_DELAY_MIN_MS > e.SEND_DELAY_MAX_MS) {
    throw new ConfigError(
      `Invalid SEND_DELAY_MIN_MS=${e.SEND_DELAY_MIN_MS}: expected a value not above SEND_DELAY_MAX_MS (${e.SEND_DELAY_MAX_MS})`,
    );
  }
  if (e.WA_EMULATOR_ROOT_KEY && (!e.WA_WS_URL || e.WA_WS_URL === WHATSAPP_WS_URL)) {
    throw new ConfigError(
      `Invalid WA_EMULATOR_ROOT_KEY=${JSON.stringify(e.WA_EMULATOR_ROOT_KEY)}: expected only with a WA_WS_URL on a loopback address`,
    );
  }
  const [rootHex, rootSerial] = (e.WA_EMULATOR_ROOT_KEY ?? '').split(':');
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    pgliteSharedBuffers: e.PGLITE_SHARED_BUFFERS,
    databaseUrl: e.DATABASE_URL,
    waProvider: e.WA_PROVIDER,
    waVersion: e.WA_VERSION ? (e.WA_VERSION.split('.').map(Number) as [number, number, number]) : undefined,
    waWsUrl: e.WA_WS_URL,
    proxyEchoUrl: e.PROXY_ECHO_URL,
    waEmulatorRootKey: rootHex
      ? { publicKey: Buffer.from(rootHex, 'hex'), serial: rootSerial ? Number(rootSerial) : 0 }
      : undefined,
    cloudApiBaseUrl: e.CLOUD_API_BASE_URL,
    role: e.ROLE,
    adminUsername: e.ADMIN_USERNAME,
    adminPassword: e.ADMIN_PASSWORD,
    signupEnabled: e.SIGNUP_ENABLED,
    defaultCountryCode: e.DEFAULT_COUNTRY_CODE,
    sendDelayMinMs: e.SEND_DELAY_MIN_MS,
    sendDelayMaxMs: e.SEND_DELAY_MAX_MS,
    warmUpDefault: e.WARM_UP_DEFAULT ?? e.WA_PROVIDER === 'baileys',
    accountWaitMs: e.SESSION_WAIT_MS,
    failoverAfterMs: e.FAILOVER_AFTER_MS,
    sendTimeoutMs: e.SEND_TIMEOUT_MS,
    healthCheckMs: e.HEALTH_CHECK_MS,
    healthCoolingMs: e.HEALTH_COOLING_MS,
    healthMarginMs: e.HEALTH_MARGIN_MS,
    undeliveredAfterMs: e.UNDELIVERED_AFTER_MS,
    erasureCompactMs: e.ERASURE_COMPACT_MS,
    rateLimitPauseMs: e.RATE_LIMIT_PAUSE_MS,
    restrictionRetryMs: e.RESTRICTION_RETRY_MS,
    lookupBatches: { size: e.LOOKUP_BATCH_SIZE, spacingMs: e.LOOKUP_SPACING_MS },
    accountLeaseMs: e.SESSION_LEASE_MS,
    tokenTtlMs: e.TOKEN_TTL_HOURS * 3_600_000,
    loginRateLimit: e.LOGIN_RATE_LIMIT,
    loginIpFailureLimit: e.LOGIN_IP_FAILURE_LIMIT,
    trustProxy: e.TRUST_PROXY,
    secretKey: e.SECRET_KEY
      ? Buffer.from(e.SECRET_KEY, e.SECRET_KEY.length === 64 ? 'hex' : 'base64')
      : undefined,
    requireAdmin2fa: e.REQUIRE_ADMIN_2FA,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    metricsToken: e.METRICS_TOKEN,
    allowPrivateWebhooks: e.ALLOW_PRIVATE_WEBHOOKS,
    allowPrivateProxies: e.ALLOW_PRIVATE_PROXIES,
    webhookRetryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    optOutKeywords: e.OPT_OUT_KEYWORDS,
    webDistDir: e.WEB_DIST_DIR ? path.resolve(e.WEB_DIST_DIR) : path.join(repoRoot, 'web/dist'),
    simulator: {
      linkAfterMs: e.SIMULATOR_LINK_AFTER_MS,
      groups: e.SIMULATOR_GROUPS,
      sendLatencyMs: e.SIMULATOR_SEND_LATENCY_MS,
      outboxFile: e.SIMULATOR_OUTBOX_FILE,
    },
    demo: e.DEMO,
    demoDataDir: path.resolve(e.DEMO_DATA_DIR),
  };
}
