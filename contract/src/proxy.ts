import { z } from 'zod';

// A proxy per account.

export const PROXY_TEXTS = {
  invalid: 'Give the proxy as socks5://user:password@host:port or http://user:password@host:port',
  needsKey: 'A proxy needs SECRET_KEY: it is stored encrypted',
  notSet: 'This account has no proxy',
  privateAddress: 'The proxy must be at a public address',
  echoUnset: 'Reaches WhatsApp through the proxy (exit address not checked: PROXY_ECHO_URL is not set)',
} as const;

/** The proxy as shown: never its password. */
export const ProxyInfo = z.object({
  scheme: z.enum(['socks5', 'socks5h', 'http']),
  host: z.string(),
  port: z.number().int(),
  username: z.string().nullable(),
  hasPassword: z.boolean(),
});
export type ProxyInfo = z.infer<typeof ProxyInfo>;

/** `url`: `socks5://user:pass@host:port` (or socks5h, http); null removes the proxy. */
export const AccountProxyBody = z.object({ url: z.string().trim().max(600).nullable() });
export type AccountProxyBody = z.infer<typeof AccountProxyBody>;

export const AccountProxyResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  proxy: ProxyInfo.nullable(),
});
export type AccountProxyResponse = z.infer<typeof AccountProxyResponse>;

/** 'Test proxy': the given URL, else the stored one. */
export const ProxyTestBody = z.object({ url: z.string().trim().max(600).optional() }).nullish();

export const ProxyTestResponse = z.object({
  success: z.literal(true),
  ok: z.boolean(),
  /** Where the proxy exits to the internet, as PROXY_ECHO_URL saw it; null when not checked. */
  exitAddress: z.string().nullable(),
  message: z.string(),
});
export type ProxyTestResponse = z.infer<typeof ProxyTestResponse>;
