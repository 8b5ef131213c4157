import crypto from 'node:crypto';

/** `sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`, keyed with the secret string as the user was given it. */
export function signature(secret: string, timestamp: number, body: string): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}
