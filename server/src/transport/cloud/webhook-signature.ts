import crypto from 'node:crypto';

/**
 * Trusting Meta's webhook calls. Graph's webhook guide ("Getting Started", Event Notifications,
 * https://developers.facebook.com/docs/graph-api/webhooks/getting-started) signs every POST with
 * `X-Hub-Signature-256: sha256=<hex>`: the HMAC-SHA256 of the payload keyed with the app secret,
 * computed over the payload as sent (an escaped-unicode JSON, lowercase hex digits). So the check
 * runs over the raw body bytes: a body parsed and serialised again (`JSON.stringify` writes `é`,
 * Meta sends `\u00e9`) no longer matches.
 */

export const SIGNATURE_HEADER = 'x-hub-signature-256';

export type SignatureCheck = 'ok' | 'missing' | 'malformed' | 'mismatch';

/** The header value Meta would send for this body: `sha256=` and 64 lowercase hex digits. */
export function signWebhookBody(rawBody: Buffer | string, appSecret: string): string {
  return `sha256=${crypto.createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

/**
 * Whether a webhook call is Meta's, compared in constant time. Anything but 'ok' is answered 401
 * and changes nothing.
 */
export function checkWebhookSignature(
  rawBody: Buffer | string,
  header: string | string[] | undefined,
  appSecret: string,
): SignatureCheck {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return 'missing';
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(value.trim());
  if (!match) return 'malformed';
  const given = Buffer.from(match[1]!.toLowerCase(), 'hex');
  const expected = crypto.createHmac('sha256', appSecret).update(rawBody).digest();
  return crypto.timingSafeEqual(given, expected) ? 'ok' : 'mismatch';
}

/**
 * Meta's verification request (same guide, Verification Requests; "Create a webhook endpoint" of
 * the WhatsApp docs): `GET <callback>?hub.mode=subscribe&hub.challenge=<n>&hub.verify_token=<t>`.
 * The endpoint answers 200 with the challenge when the mode is `subscribe` and the token is the
 * one the account set; null means answer 403.
 */
export function answerVerification(query: Record<string, unknown>, verifyToken: string): string | null {
  const mode = query['hub.mode'];
  const token = query['hub.verify_token'];
  const challenge = query['hub.challenge'];
  if (mode !== 'subscribe' || typeof token !== 'string' || typeof challenge !== 'string') return null;
  if (challenge === '' || challenge.length > 200) return null;
  const a = crypto.createHash('sha256').update(token).digest();
  const b = crypto.createHash('sha256').update(verifyToken).digest();
  return crypto.timingSafeEqual(a, b) ? challenge : null;
}
