import { DisconnectReason } from 'baileys';
import { messageOf, statusCodeOf } from './mapping.ts';

const NETWORK_ERROR =
  /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|getaddrinfo/i;

/** What to do after a socket closed. */
export type CloseDecision = {
  /** In words, for the session's status. */
  reason: string;
  /** The phone unlinked the device: wipe the credentials. */
  loggedOut: boolean;
  /** `now`: a new socket at once; `backoff`: later, with backoff; `never`: until a person restarts it. */
  reconnect: 'now' | 'backoff' | 'never';
};

/** The close-code policy of STACK.md, from the close error and whether the account is linked yet. */
export function closeDecision(error: unknown, linked: boolean): CloseDecision {
  const code = statusCodeOf(error);
  const text = messageOf(error);
  if (code === DisconnectReason.restartRequired)
    // Normal right after pairing.
    return { reason: 'Restarting the connection after linking', loggedOut: false, reconnect: 'now' };
  if (code === DisconnectReason.loggedOut)
    return { reason: 'Logged out from the phone', loggedOut: true, reconnect: 'never' };
  if (code === DisconnectReason.forbidden)
    return { reason: 'Banned: WhatsApp refused this account (403)', loggedOut: false, reconnect: 'never' };
  if (code === DisconnectReason.connectionReplaced)
    return {
      reason:
        'Opened elsewhere: another WhatsApp Web session replaced this one (440). Restart to take it back.',
      loggedOut: false,
      reconnect: 'never',
    };
  if (!linked && /QR refs attempts ended/i.test(text))
    return {
      reason: 'QR code expired. Restart the instance to get a new one.',
      loggedOut: false,
      reconnect: 'never',
    };
  const reason =
    code === undefined || NETWORK_ERROR.test(text)
      ? `Cannot reach WhatsApp: check this server's internet connection. Retrying by itself. (${text})`
      : `Connection lost (${code}): ${text}`;
  return { reason, loggedOut: false, reconnect: 'backoff' };
}
