import type { Readable } from 'node:stream';
import type { AppContext } from '../context.ts';
import { cloudCredentials, graphClient } from './cloud/accounts.ts';
import { accountProxy } from './proxy.ts';

/** A file someone sent to an account, fetched again by its provider's reference. */
export type FetchedMedia = Readable | Buffer;

/**
 * A linked phone's: downloaded from WhatsApp's media servers with the key the message carried,
 * through the account's proxy when it has one (its traffic never leaves from the server's address).
 * Its module imports Baileys, so it loads with the first such download (as the transport loads
 * with the first linked phone, accounts/transports.ts), not at start.
 */
export async function fetchBaileysMedia(
  ctx: AppContext,
  accountId: string,
  ref: string,
): Promise<FetchedMedia> {
  const { downloadIncomingMedia } = await import('../transport/baileys/incoming.ts');
  return downloadIncomingMedia(ref, await accountProxy(ctx, accountId));
}

/** The simulated network's: its reference carries the file (simulator/transport.ts receiveText). */
export async function fetchSimulatedMedia(
  _ctx: AppContext,
  _accountId: string,
  ref: string,
): Promise<FetchedMedia> {
  const { data } = JSON.parse(ref) as { data: string };
  return Buffer.from(data, 'base64');
}

/** A Cloud API number's: its media id, through the Graph API with the account's token (graph-client.ts downloadMedia). */
export async function fetchCloudMedia(
  ctx: AppContext,
  accountId: string,
  ref: string,
): Promise<FetchedMedia> {
  const creds = await cloudCredentials(ctx.db, ctx.config.secretKey, accountId);
  if (!creds) throw new Error('The Cloud API account is gone');
  const { bytes } = await graphClient(ctx.config, creds.accessToken).downloadMedia(ref, creds.phoneNumberId);
  return bytes;
}
