import { FAILURE_TEXTS } from '@wa/contract';
import { SendError } from '../types.ts';
import { messageOf, statusCodeOf } from './mapping.ts';

export const RESTRICTED_463 = 'Paused: WhatsApp restricted this account from starting new chats (error 463)';
export const RATE_LIMITED = 'WhatsApp asked this account to slow down (rate-overlimit): sending again later';

/** A send that Baileys or WhatsApp refused, as a SendError (query errors carry the code in `data`). */
export function sendErrorOf(err: unknown): SendError {
  if (socketGone(err)) return new SendError('not-connected', 'Session is not connected');
  const data = (err as { data?: unknown }).data;
  const code = typeof data === 'number' ? data : statusCodeOf(err);
  const text = messageOf(err);
  if (code === 429 || /rate-overlimit/i.test(text)) return new SendError('rate-limited', RATE_LIMITED);
  if (code === 463) return new SendError('restricted', RESTRICTED_463);
  if (code === 403 || /not-authorized|forbidden/i.test(text))
    return new SendError('not-admin', FAILURE_TEXTS.notAdmin);
  if (code === 404 || /item-not-found/i.test(text))
    return new SendError('not-in-group', FAILURE_TEXTS.notInGroup);
  if (code === 408 || /timed out/i.test(text)) return new SendError('timeout', `Timed out: ${text}`);
  if (code === 428 || /connection closed/i.test(text))
    return new SendError('not-connected', 'Session is not connected');
  return new SendError('unknown', text);
}

/**
 * A message the server acked with an `error` code, as the failure it is: 463 restricts new chats
 * and 429 slows the account (sendErrorOf); 479 is rc14's `smax-invalid` (Socket/messages-recv.js
 * handleBadAck: "stanza rejected by server — likely stale device account or malformed
 * addressing"); any other code is shown with its number.
 */
export function ackRefusal(code: string | undefined): SendError {
  const known = sendErrorOf({ data: Number(code) });
  if (known.code !== 'unknown') return known;
  const cause = code === '479' ? ': stale devices or mixed addressing' : '';
  return new SendError('unknown', `WhatsApp refused the message (error ${code ?? 'unknown'}${cause})`);
}

/**
 * The socket died under the send before any of it was taken: rc14 rejects a query waiting on the
 * closed socket with the WebSocket's close code itself, a number (Socket/socket.js
 * waitForMessage: the client's 'close' event passes (code, reason) to `onErr`), and a frame
 * written to a reset or closed socket fails the write (sendRawMessage: `write ECONNRESET`,
 * ws's 'WebSocket is not open'). A failed write left nothing on the server: the recipient waits
 * for the reconnect instead of failing with the socket's error (seen on the emulator: a send cut
 * mid-send failed 'write ECONNRESET').
 */
function socketGone(err: unknown): boolean {
  if (typeof err === 'number') return true;
  const e = err as { code?: unknown; message?: unknown } | null;
  if (e?.code === 'ECONNRESET' || e?.code === 'EPIPE') return /^write /.test(String(e.message ?? ''));
  return /^WebSocket is not open/.test(String(e?.message ?? ''));
}
