import type { Agent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { UserFacingSocketConfig } from 'baileys';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { SocksProxyAgent } from 'socks-proxy-agent';
import { type Dispatcher, ProxyAgent, Socks5ProxyAgent } from 'undici';

/** An account's proxy: SOCKS5 (`socks5h`: the proxy resolves names) or HTTP CONNECT. */
export type ProxySettings = {
  scheme: 'socks5' | 'socks5h' | 'http';
  host: string;
  port: number;
  username?: string;
  password?: string;
};

/** The proxy as a URL, credentials percent-encoded. */
export function proxyUrl(p: ProxySettings): string {
  const auth =
    p.username !== undefined
      ? `${encodeURIComponent(p.username)}${p.password !== undefined ? `:${encodeURIComponent(p.password)}` : ''}@`
      : '';
  const host = p.host.includes(':') ? `[${p.host}]` : p.host;
  return `${p.scheme}://${auth}${host}:${p.port}`;
}

/** The `http.Agent` that tunnels through the proxy (the WebSocket and Node's https uploads). */
export function proxyHttpAgent(p: ProxySettings): Agent {
  const url = proxyUrl(p);
  return p.scheme === 'http' ? new HttpsProxyAgent(url) : new SocksProxyAgent(url);
}

/** The undici dispatcher for Node's fetch through the proxy (downloads). */
export function proxyDispatcher(p: ProxySettings): Dispatcher {
  if (p.scheme === 'http') {
    const token =
      p.username !== undefined
        ? `Basic ${Buffer.from(`${p.username}:${p.password ?? ''}`).toString('base64')}`
        : undefined;
    return new ProxyAgent({ uri: `http://${p.host}:${p.port}`, ...(token ? { token } : {}) });
  }
  return new Socks5ProxyAgent(proxyUrl({ ...p, scheme: 'socks5' }));
}

/**
 * The options of a fetch that goes through the proxy (Node's fetch takes undici's `dispatcher`),
 * for what the product asks itself: rc14's fetchLatestWaWebVersion spreads its options into
 * fetch (Utils/generics.js), downloadContentFromMessage passes `options` on to getHttpStream
 * (Utils/messages-media.js).
 */
export function proxiedFetchOptions(p: ProxySettings): RequestInit {
  return { dispatcher: proxyDispatcher(p) } as RequestInit;
}

/**
 * What a socket needs to send everything through the proxy, read from rc14:
 * - `agent`: the WebSocket (Socket/Client/websocket.js passes it to `new WebSocket`);
 * - `fetchAgent`: media uploads (Utils/messages-media.js uploadWithNodeHttp, `https.request({ agent })`);
 * - `options.dispatcher`: media downloads, history and app-state blobs (Utils/messages-media.js
 *   getHttpStream calls global fetch with `options`, Defaults/index.js).
 * All three are always set together: with a proxy configured nothing goes direct.
 */
export function proxiedSocketConfig(
  p: ProxySettings,
): Pick<UserFacingSocketConfig, 'agent' | 'fetchAgent' | 'options'> {
  // The proxy agents are http.Agents that tunnel TLS themselves; rc14 types both fields as https.Agent.
  const agent = proxyHttpAgent(p) as HttpsAgent;
  return {
    agent,
    fetchAgent: agent,
    options: proxiedFetchOptions(p) as UserFacingSocketConfig['options'],
  };
}

/** Every text an error carries: its message, Boom's `data` (the WebSocket's own error) and its cause. */
function errorText(error: unknown): string {
  const e = error as
    | {
        message?: string;
        code?: string;
        data?: { message?: string; code?: string };
        cause?: { message?: string; code?: string };
      }
    | undefined;
  return [e?.message, e?.code, e?.data?.message, e?.data?.code, e?.cause?.message, e?.cause?.code]
    .filter((t): t is string => typeof t === 'string')
    .join(' ');
}

export const PROXY_REFUSED = 'Proxy refused the connection';

/**
 * Why a socket through the proxy closed, in words, when the proxy is the cause; null otherwise
 * (the close-code policy decides then). A refusing or silent proxy is never bypassed: the
 * account stays down with this reason and retries through the same proxy.
 */
export function proxyCloseReason(error: unknown, p: ProxySettings): string | null {
  const text = errorText(error);
  const where = `${p.host}:${p.port}`;
  if (/Socks5 Authentication failed|Proxy Authentication Required|\b407\b/i.test(text))
    return `${PROXY_REFUSED}: it did not accept the username or password (${where})`;
  if (/Socks5 proxy rejected connection|socks.*rejected/i.test(text))
    return `${PROXY_REFUSED} to WhatsApp (${where})`;
  if (/Proxy connection timed out|socks.*timed out/i.test(text))
    return `${PROXY_REFUSED}: it did not answer in time (${where})`;
  if (
    /ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ECONNRESET|ENOTFOUND|EAI_AGAIN/.test(text) &&
    text.includes(p.host)
  )
    return `${PROXY_REFUSED} (${where}: ${text.match(/E[A-Z_]+/)?.[0] ?? 'unreachable'})`;
  return null;
}
