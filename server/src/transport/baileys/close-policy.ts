import { DisconnectReason } from 'baileys';
import { messageOf, statusCodeOf } from './mapping.ts';

const NETWORK_ERROR =
  /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|getaddrinfo/i;

/** What to do after a socket closed. */
export type CloseDecision = {
  /** In words, for the account's status. */
  reason: string;
  /** The phone unlinked the device: wipe the credentials. */
  loggedOut: boolean;
  /** `now`: a new socket at once; `backoff`: later, with backoff; `never`: until a person restarts it. */
  reconnect: 'now' | 'backoff' | 'never';
  /** WhatsApp refused the client version: look the latest one up again before the next socket. */
  clearVersion?: boolean;
  /** Another connection with these credentials replaced this one (440). */
  replaced?: boolean;
};

/**
 * 440s in a row (without the connection staying up between them) after which the account stays
 * down. The credentials live only in this product's database, so a 440 is another connection of
 * ours: the old owner's socket after the account's lease moved to another node, which lets go
 * when it sees the lease gone (within SESSION_LEASE_MS, 30 s by default; four backoffs, about
 * 2 + 4 + 8 + 16 s, outlast it). A fifth in a row is a second installation on the same database (a
 * restored copy): reconnecting again would only fight it.
 */
export const MAX_REPLACED_IN_A_ROW = 4;

/** The reason of 405 (the client version is below WhatsApp's minimum). */
export const CLIENT_VERSION_REJECTED =
  'WhatsApp rejected this client version: update the console or set WA_VERSION';
export const BANNED = 'Banned by WhatsApp';

/**
 * When a temporary ban (402) ends. Baileys passes the failure stanza's attributes as the
 * error's data (Socket/socket.js, CB:failure) without reading them; the attribute name and
 * unit are not documented: `expire` in seconds (an instant when it is a Unix time, else a
 * duration) is what this reads.
 */
function banEnd(error: unknown): Date | null {
  const data = (error as { data?: Record<string, unknown> } | undefined)?.data;
  const raw = Number(data?.expire ?? data?.expiry ?? data?.until);
  if (!Number.isFinite(raw) || raw <= 0) return null;
  return new Date(raw > 1e9 ? raw * 1000 : Date.now() + raw * 1000);
}

const atTime = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** The close-code policy of STACK.md, from the close error and whether the account is linked yet. */
export function closeDecision(error: unknown, linked: boolean, replacedInARow = 0): CloseDecision {
  const code = statusCodeOf(error);
  const text = messageOf(error);
  if (code === DisconnectReason.restartRequired)
    // Normal right after pairing.
    return { reason: 'Restarting the connection after linking', loggedOut: false, reconnect: 'now' };
  if (code === DisconnectReason.loggedOut)
    return { reason: 'Logged out from the phone', loggedOut: true, reconnect: 'never' };
  // 402 (temporary ban) and 406 (banned) come from CB:failure (Socket/socket.js): final.
  if (code === 402) {
    const end = banEnd(error);
    return { reason: end ? `${BANNED} until ${atTime(end)}` : BANNED, loggedOut: false, reconnect: 'never' };
  }
  if (code === 406) return { reason: BANNED, loggedOut: false, reconnect: 'never' };
  // 405: the version is below WhatsApp's minimum; the same version fails again at once.
  if (code === 405)
    return { reason: CLIENT_VERSION_REJECTED, loggedOut: false, reconnect: 'never', clearVersion: true };
  if (code === DisconnectReason.forbidden)
    return { reason: 'Banned: WhatsApp refused this account (403)', loggedOut: false, reconnect: 'never' };
  if (code === DisconnectReason.connectionReplaced)
    return replacedInARow < MAX_REPLACED_IN_A_ROW
      ? {
          reason:
            'Opened elsewhere: another connection of this account replaced this one (440). Reconnecting.',
          loggedOut: false,
          reconnect: 'backoff',
          replaced: true,
        }
      : {
          reason:
            'Opened elsewhere: another WhatsApp Web session replaced this one (440). Restart to take it back.',
          loggedOut: false,
          reconnect: 'never',
          replaced: true,
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
