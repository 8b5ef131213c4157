import { storage } from './storage.ts';

/** An HTTP answer that was not OK; `message` is the server's text when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly serverMessage: string | null,
  ) {
    super(message);
  }
}

type Options = {
  method?: string;
  body?: unknown;
  signal?: AbortSignal;
  credentials?: RequestCredentials;
  headers?: Record<string, string>;
};

/**
 * The one HTTP client: JSON in and out, the bearer token on every call, and a 401 anywhere
 * (but the login call) clears the browser session and goes to the login page.
 */
export async function apiFetch<T>(path: string, options: Options = {}): Promise<T> {
  const headers: Record<string, string> = { ...options.headers };
  const token = storage.token();
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method: options.method ?? (options.body !== undefined ? 'POST' : 'GET'),
    headers,
    body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
    signal: options.signal,
    credentials: options.credentials,
  });
  let data: unknown = null;
  const text = await res.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!res.ok) {
    const serverMessage =
      data && typeof data === 'object' && typeof (data as { message?: unknown }).message === 'string'
        ? (data as { message: string }).message
        : null;
    if (res.status === 401 && path !== '/api/auth/login') {
      storage.clear();
      window.location.hash = '#/login';
    }
    throw new ApiError(res.status, serverMessage ?? `HTTP error! status: ${res.status}`, serverMessage);
  }
  return data as T;
}

/**
 * A fresh `Idempotency-Key` for one click of a send button: the server answers a repeat of the
 * same request (a double submit, a retry after a lost answer) with the first job. Built from
 * getRandomValues, which works on plain HTTP too (randomUUID needs a secure context).
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Fetches a binary resource (QR image) with the token, as an object URL. */
export async function apiBlobUrl(path: string, signal?: AbortSignal): Promise<string> {
  const token = storage.token();
  const res = await fetch(path, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal });
  if (!res.ok) {
    let serverMessage: string | null = null;
    try {
      const body = (await res.json()) as { message?: unknown };
      if (typeof body.message === 'string') serverMessage = body.message;
    } catch {
      serverMessage = null;
    }
    throw new ApiError(res.status, serverMessage ?? `HTTP error! status: ${res.status}`, serverMessage);
  }
  return URL.createObjectURL(await res.blob());
}
