/**
 * Meta's errors as one typed domain error. The Cloud API answers a failed call with Graph's
 * error envelope (Graph API "Handling Errors",
 * https://developers.facebook.com/docs/graph-api/guides/error-handling):
 * `{ error: { message, type, code, error_subcode?, error_user_title?, error_user_msg?,
 * error_data?: { messaging_product, details }, fbtrace_id } }`, and reports the same codes later in
 * a `failed` status webhook (`errors[]: { code, title, message, error_data.details }`, status
 * webhook reference). Meta's error-code page
 * (https://developers.facebook.com/documentation/business-messaging/whatsapp/support/error-codes)
 * says to build handling on `code` and `details`, not on titles or HTTP statuses: so the class
 * below is decided by the code alone.
 */

/**
 * What the engine does with a recipient whose send Meta refused:
 * - `retryAfter24h`: 131049, the per-user marketing limit. Not a failure: Meta's page on
 *   per-user marketing template limits says to wait at least 24 hours before resending.
 * - `backoff`: 130429 (the number's throughput, Throughput page), 131056 (pair rate limit: too
 *   many messages to one user), and Graph's temporary codes (1, 2, 4, 80007, 131000, 131016):
 *   nothing was sent; wait and try again.
 * - `final`: the recipient cannot be sent this message (131026 undeliverable, 131047 outside the
 *   24-hour window, 100 / 132000 / 132001 … invalid parameter or template): failed with Meta's
 *   title, refunded.
 * - `auth`: 190 (and Graph's other token codes): the account's token no longer works; the
 *   account goes DISCONNECTED with Meta's text, its recipients wait.
 * - `network`: no answer from Meta (refused, reset, timed out). For a POST /messages the message
 *   may or may not have gone: never resent automatically (docs/decisions.md, Crash mid-send).
 */
export type GraphErrorClass = 'retryAfter24h' | 'backoff' | 'final' | 'auth' | 'network';

/** The codes this product acts on, named as Meta's error-code page names them. */
export const GRAPH_ERROR = {
  invalidParameter: 100,
  accessTokenExpired: 190,
  rateLimitHit: 130429,
  reEngagementMessage: 131047,
  undeliverable: 131026,
  healthyEcosystem: 131049,
  /**
   * "User has stopped receipt of marketing messages": "Unable to deliver the message. This
   * recipient has chosen to stop receiving marketing messages on WhatsApp from your business."
   * (error-code page). Final: the person is left out of this business's marketing templates until
   * Meta's `user_preferences` webhook says they resumed.
   */
  marketingStopped: 131050,
  pairRateLimit: 131056,
  templateParamCountMismatch: 132000,
  templateDoesNotExist: 132001,
} as const;

/** Graph's token and permission codes (error-handling page: 102 API session, 190 token, 10/200-299 permission). */
const AUTH_CODES = new Set([0, 102, 190, 10]);
/** Temporary: 1 API unknown, 2 API service, 4 / 80007 too many calls, 131000 something went wrong, 131016 service unavailable, 131057 throughput upgrade in progress. */
const BACKOFF_CODES = new Set([1, 2, 4, 80007, 130429, 131000, 131016, 131056, 131057]);

export function classifyGraphCode(code: number): GraphErrorClass {
  if (code === GRAPH_ERROR.healthyEcosystem) return 'retryAfter24h';
  if (BACKOFF_CODES.has(code)) return 'backoff';
  if (AUTH_CODES.has(code) || (code >= 200 && code <= 299)) return 'auth';
  return 'final';
}

export class GraphApiError extends Error {
  readonly errorClass: GraphErrorClass;
  constructor(
    /** Meta's code (0 when no Graph error came back: a network failure or a body that is not Graph's). */
    readonly code: number,
    /** Meta's title for the code: the text a user reads on a failed recipient. */
    readonly title: string,
    /** Meta's `error_data.details`, when it gave one: why, for this request. */
    readonly details: string | null,
    /** The HTTP status of the answer (0 without one). Informational: the class comes from `code`. */
    readonly httpStatus: number,
    errorClass?: GraphErrorClass,
    /** Graph's `fbtrace_id`, for Meta's support. */
    readonly traceId: string | null = null,
  ) {
    super(details && details !== title ? `${title}: ${details}` : title);
    this.name = 'GraphApiError';
    this.errorClass = errorClass ?? classifyGraphCode(code);
  }
}

type GraphErrorBody = {
  error?: {
    message?: unknown;
    code?: unknown;
    error_user_title?: unknown;
    error_data?: { details?: unknown };
    fbtrace_id?: unknown;
  };
};

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);

/**
 * The title Meta gives. Graph's `message` carries it as "(#131026) Message undeliverable" (the
 * error-code page: "code titles … are included as part of the message value"): the `(#code) `
 * prefix is dropped; `error_user_title` wins when Meta sent one.
 */
function titleOf(error: NonNullable<GraphErrorBody['error']>, code: number): string {
  const user = text(error.error_user_title);
  if (user) return user;
  const message = text(error.message);
  if (message) return message.replace(/^\(#[0-9]+\)\s*/, '');
  return `Graph API error ${code}`;
}

/** The domain error of one non-2xx answer, from its status and body text. */
export function graphErrorFromResponse(httpStatus: number, bodyText: string): GraphApiError {
  let body: GraphErrorBody | null = null;
  try {
    body = JSON.parse(bodyText) as GraphErrorBody;
  } catch {}
  const error = body?.error;
  if (!error || typeof error.code !== 'number') {
    // Not Graph's envelope (a proxy's page, an outage): temporary on 5xx and 429, else final.
    const temporary = httpStatus >= 500 || httpStatus === 429;
    return new GraphApiError(
      0,
      `Graph API answered HTTP ${httpStatus}`,
      text(bodyText.slice(0, 200)),
      httpStatus,
      temporary ? 'backoff' : 'final',
    );
  }
  return new GraphApiError(
    error.code,
    titleOf(error, error.code),
    text(error.error_data?.details),
    httpStatus,
    undefined,
    text(error.fbtrace_id),
  );
}

/** The domain error of a request that got no answer. */
export function graphNetworkError(cause: unknown): GraphApiError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new GraphApiError(0, 'No answer from the Graph API', reason, 0, 'network');
}
