import crypto from 'node:crypto';

/** An opaque, unguessable id. */
export const newId = (): string => crypto.randomUUID();

/** A random url-safe string of `bytes` random bytes. */
export const randomToken = (bytes = 32): string => crypto.randomBytes(bytes).toString('base64url');

export const sha256 = (data: string | Buffer): string =>
  crypto.createHash('sha256').update(data).digest('hex');
