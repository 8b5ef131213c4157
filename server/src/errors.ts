import { TEXTS } from '@wa/contract';
/**
 * Domain errors: a code, the HTTP status it maps to, and the message the user reads.
 * Services throw these; the HTTP error handler is the one place that turns them into answers.
 */
export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'payment_required'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'rate_limited'
  | 'unavailable';

const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  rate_limited: 429,
  unavailable: 503,
};

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Fields the answer carries besides `success` and `message` (e.g. `twoFactor` on sign-in). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.status = STATUS[code];
  }
}

export const badRequest = (message: string) => new AppError('bad_request', message);
export const unauthorized = (message = 'Unauthorized') => new AppError('unauthorized', message);
export const forbidden = (message = 'Forbidden') => new AppError('forbidden', message);
export const notFound = (message = 'Not found') => new AppError('not_found', message);
export const conflict = (message: string) => new AppError('conflict', message);
export const paymentRequired = (message: string) => new AppError('payment_required', message);
export const tooLarge = (message: string) => new AppError('too_large', message);
export const unavailable = (message: string) => new AppError('unavailable', message);

/** Texts the server answers with, word for word as the product specification gives them. */
export const MESSAGES = {
  creditShort: TEXTS.creditShort,
  noSession: TEXTS.noSession,
  invalidLogin: TEXTS.invalidLogin,
} as const;

/** A setting (an environment variable, the key file) that keeps the server from starting, in words. */
export class ConfigError extends Error {}
