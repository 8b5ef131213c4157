import http from 'node:http';
import https from 'node:https';
import { PROXY_TEXTS, type ProxyInfo, type ProxyTestResponse } from '@wa/contract';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { accounts } from '../db/schema.ts';
import { accountProxyContext, decryptValue, encryptValue } from '../db/secrets.ts';
import { badRequest } from '../errors.ts';
import { authorizeAccount } from '../policy/access.ts';
import { signal } from '../signals.ts';
import type { ProxySettings } from '../transport/baileys/proxy.ts';
import type { UserRow } from '../users/repository.ts';
import { addressesOf, isPublicAddress } from '../webhooks/address.ts';
import { type AccountRow, updateAccount } from './repository.ts';

const SCHEMES = new Set(['socks5', 'socks5h', 'http']);

/** `socks5://user:pass@host:port` (or socks5h, http) as settings; a 400 naming the form otherwise. */
export function parseProxyUrl(text: string): ProxySettings {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw badRequest(PROXY_TEXTS.invalid);
  }
  const scheme = url.protocol.replace(/:$/, '');
  const port = Number(url.port);
  if (
    !SCHEMES.has(scheme) ||
    url.hostname === '' ||
    !Number.isInteger(port) ||
    port < 1 ||
    port > 65535 ||
    (url.pathname !== '' && url.pathname !== '/') ||
    url.search !== '' ||
    url.hash !== ''
  )
    throw badRequest(PROXY_TEXTS.invalid);
  const username = url.username ? decodedOr400(url.username) : undefined;
  const password = url.password ? decodedOr400(url.password) : undefined;
  if ((username?.length ?? 0) > 255 || (password?.length ?? 0) > 255) throw badRequest(PROXY_TEXTS.invalid);
  return {
    scheme: scheme as ProxySettings['scheme'],
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port,
    ...(username !== undefined ? { username } : {}),
    ...(password !== undefined ? { password } : {}),
  };
}

/** A percent-encoded part of the URL; a bad escape (`%ZZ`) is the form's 400, not a URIError. */
function decodedOr400(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw badRequest(PROXY_TEXTS.invalid);
  }
}

/**
 * A proxy is dialled from this server: 'Test proxy' at once, and every socket, upload and download
 * of the account once saved. At a loopback or private address that is a scan of the server's own
 * network (a test says how each port answered; a saved one says it in the account's reason).
 * Refused as webhooks are, unless the operator allows it (ALLOW_PRIVATE_PROXIES); a name is
 * judged by every address it has.
 */
async function assertPublicProxy(ctx: Pick<AppContext, 'config'>, p: ProxySettings): Promise<void> {
  if (ctx.config.allowPrivateProxies) return;
  const addresses = await addressesOf(p.host).catch(() => []);
  if (addresses.length === 0 || !addresses.every(isPublicAddress))
    throw badRequest(PROXY_TEXTS.privateAddress);
}

/** A proxy the user gives (to save or to test): its form, then its address (400s otherwise). */
export async function acceptProxyUrl(ctx: Pick<AppContext, 'config'>, text: string): Promise<ProxySettings> {
  const settings = parseProxyUrl(text);
  await assertPublicProxy(ctx, settings);
  return settings;
}

export const presentProxy = (p: ProxySettings | null): ProxyInfo | null =>
  p && {
    scheme: p.scheme,
    host: p.host,
    port: p.port,
    username: p.username ?? null,
    hasPassword: p.password !== undefined,
  };

/** The stored proxy of an account, decrypted (it decrypts only for the row it was sealed for). */
export function proxyOf(secretKey: Buffer | undefined, row: Pick<AccountRow, 'accountId' | 'proxy'>) {
  if (!row.proxy) return null;
  return JSON.parse(decryptValue(secretKey, accountProxyContext(row.accountId), row.proxy)) as ProxySettings;
}

/** An account's own proxy as stored now (read for each use, so that a change takes effect at once); null without one. */
export async function accountProxy(ctx: AppContext, accountId: string): Promise<ProxySettings | null> {
  const [row] = await ctx.db
    .select({ accountId: accounts.accountId, proxy: accounts.proxy })
    .from(accounts)
    .where(eq(accounts.accountId, accountId));
  return row ? proxyOf(ctx.config.secretKey, row) : null;
}

/** The stored form: always encrypted; without a key there is no proxy. */
export function sealProxy(secretKey: Buffer | undefined, accountId: string, p: ProxySettings): string {
  if (!secretKey) throw badRequest(PROXY_TEXTS.needsKey);
  return encryptValue(secretKey, accountProxyContext(accountId), JSON.stringify(p));
}

export async function getAccountProxy(ctx: AppContext, user: UserRow, accountId: string) {
  const row = await authorizeAccount(ctx.db, user, 'read', accountId);
  return presentProxy(proxyOf(ctx.config.secretKey, row));
}

/**
 * Sets or removes an account's proxy and rebuilds its connection with it (a `reconnect` order for
 * the node that drives it): from then on every socket, upload and download of the account goes
 * through the proxy, and a dead proxy keeps the account down with the reason, never direct.
 */
export async function setAccountProxy(ctx: AppContext, user: UserRow, accountId: string, url: string | null) {
  const row = await authorizeAccount(ctx.db, user, 'act', accountId);
  const settings = url ? await acceptProxyUrl(ctx, url) : null;
  const stored = settings ? sealProxy(ctx.config.secretKey, accountId, settings) : null;
  await updateAccount(ctx.db, accountId, { proxy: stored, command: 'reconnect', commandAt: new Date() });
  await signal(ctx, 'session-changed', row.accountId);
  return presentProxy(settings);
}

const TEST_TIMEOUT_MS = 10_000;

/** The host and port the sockets dial: WA_WS_URL's, else WhatsApp Web's (rc14 Defaults/index.js). */
function whatsappEndpoint(waWsUrl: string | undefined) {
  const url = new URL(waWsUrl ?? 'wss://web.whatsapp.com/ws/chat');
  const tls = url.protocol !== 'ws:';
  return { host: url.hostname, port: Number(url.port) || (tls ? 443 : 80), path: url.pathname, tls };
}

/**
 * 'Test proxy': a connection through the proxy to WhatsApp's endpoint within 10 s, then, when
 * PROXY_ECHO_URL is set, the address the proxy exits from as that service sees it.
 */
export async function testAccountProxy(
  ctx: AppContext,
  user: UserRow,
  accountId: string,
  url: string | undefined,
): Promise<Omit<ProxyTestResponse, 'success'>> {
  const row = await authorizeAccount(ctx.db, user, 'act', accountId);
  const settings = url ? await acceptProxyUrl(ctx, url) : proxyOf(ctx.config.secretKey, row);
  if (!settings) throw badRequest(PROXY_TEXTS.notSet);
  // A proxy saved before this check (or while the operator allowed it) is judged again.
  if (!url) await assertPublicProxy(ctx, settings);
  const target = whatsappEndpoint(ctx.config.waWsUrl);
  // The proxy agents and undici load with the first test (or with the Baileys transport), not at start.
  const { proxyDispatcher, proxyHttpAgent } = await import('../transport/baileys/proxy.ts');
  // The proxy resolves WhatsApp's name itself here (socks5h): the test is of the proxy, not of this server's DNS.
  const agent = proxyHttpAgent(settings.scheme === 'socks5' ? { ...settings, scheme: 'socks5h' } : settings);
  try {
    await new Promise<void>((resolve, reject) => {
      const request = (target.tls ? https : http).request({
        host: target.host,
        port: target.port,
        path: target.path,
        agent,
        timeout: TEST_TIMEOUT_MS,
      });
      // An HTTP proxy that refuses the CONNECT answers in WhatsApp's place: its status is not a reach.
      let refused: Error | null = null;
      request.on('proxyConnect', (connect: { statusCode: number }) => {
        if (connect.statusCode !== 200) refused = new Error(`CONNECT answered ${connect.statusCode}`);
      });
      // Any answer (a WebSocket endpoint answers a plain GET with an error status) means reached.
      request.on('response', (res) => {
        res.resume();
        if (refused) reject(refused);
        else resolve();
      });
      request.on('timeout', () => request.destroy(new Error('Proxy connection timed out')));
      request.on('error', reject);
      request.end();
    });
  } catch (err) {
    return { ok: false, exitAddress: null, message: proxyFailure(err, settings) };
  } finally {
    agent.destroy();
  }
  const echo = ctx.config.proxyEchoUrl;
  if (!echo) return { ok: true, exitAddress: null, message: PROXY_TEXTS.echoUnset };
  const dispatcher = proxyDispatcher(settings);
  try {
    const res = await fetch(echo, {
      dispatcher,
      signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
    } as RequestInit);
    const body = (await res.json()) as { ip?: unknown };
    const ip = typeof body.ip === 'string' ? body.ip : null;
    return { ok: true, exitAddress: ip, message: ip ? `Exits from ${ip}` : PROXY_TEXTS.echoUnset };
  } catch (err) {
    return { ok: false, exitAddress: null, message: proxyFailure(err, settings) };
  } finally {
    await dispatcher.close().catch(() => {});
  }
}

function proxyFailure(err: unknown, p: ProxySettings): string {
  const text =
    err instanceof Error
      ? `${err.message}${err.cause instanceof Error ? `: ${err.cause.message}` : ''}`
      : String(err);
  return `Proxy refused the connection (${p.host}:${p.port}): ${text}`;
}
