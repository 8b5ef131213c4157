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
 * The one HTTP client: JSON in and out (or a FormData upload), the bearer token on every call, and a 401 anywhere
 * (but the login call) clears the browser session and goes to the login page.
 */
export async function apiFetch<T>(path: string, options: Options = {}): Promise<T> {
  const headers: Record<string, string> = { ...options.headers };
  const token = storage.token();
  if (token) headers.authorization = `Bearer ${token}`;
  // A FormData body (a file upload) sets its own multipart content type.
  const form = options.body instanceof FormData;
  if (options.body !== undefined && !form) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method: options.method ?? (options.body !== undefined ? 'POST' : 'GET'),
    headers,
    body: form
      ? (options.body as FormData)
      : options.body !== undefined
        ? JSON.stringify(options.body)
        : undefined,
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

/**
 * The text for a failed call (docs/decisions.md, Kept to the letter): the server's message when it sent one, the
 * fallback for an HTTP error without one, and '{prefix}: {reason}' when the call never answered.
 */
export function errorText(err: unknown, fallback: string, prefix: string): string {
  if (err instanceof ApiError) return err.serverMessage ?? fallback;
  const reason = err instanceof Error ? err.message : String(err);
  return `${prefix}: ${reason}`;
}

/** A failed call's text for a page's alert: the server's message, else a generic one. */
export const messageOf = (err: unknown): string =>
  err instanceof ApiError ? err.message : 'Something went wrong. Please try again.';

/** Downloads a file the server writes (a CSV export) with the token, under `fileName`. */
export async function apiDownload(path: string, fileName: string): Promise<void> {
  const url = await apiBlobUrl(path);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
