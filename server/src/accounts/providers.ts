import type { AccountKind, AccountProvider } from '@wa/contract';
import { eq } from 'drizzle-orm';
import type { Config } from '../config.ts';
import type { AppContext } from '../context.ts';
import { accounts } from '../db/schema.ts';
import { BAILEYS_PROVIDER } from '../transport/baileys/provider.ts';
import { CLOUD_PROVIDER } from '../transport/cloud/provider.ts';
import { SIMULATOR_PROVIDER } from '../transport/simulator/provider.ts';
import type { ProviderDescriptor, Transport, TransportAccount } from '../transport/types.ts';
import {
  type FetchedMedia,
  fetchBaileysMedia,
  fetchCloudMedia,
  fetchSimulatedMedia,
} from './incoming-media.ts';
import { baileysTransport, cloudTransport, simulatorTransport } from './transports.ts';

/** A provider: its folder's description and the factory of its transport for one account. */
export type Provider = ProviderDescriptor & {
  create(ctx: AppContext, account: TransportAccount): Transport | Promise<Transport>;
  /** A file someone sent to the account, by the reference its transport reported (incoming-media.ts). */
  fetchMedia(ctx: AppContext, accountId: string, ref: string): Promise<FetchedMedia>;
};

/**
 * The kinds of account, one line each. Routes, services and the engine ask a provider's
 * capabilities, never which kind runs; a new kind is a folder under transport/ and a line here.
 */
export const PROVIDERS: Readonly<Record<AccountProvider, Provider>> = {
  baileys: { ...BAILEYS_PROVIDER, create: baileysTransport, fetchMedia: fetchBaileysMedia },
  simulator: { ...SIMULATOR_PROVIDER, create: simulatorTransport, fetchMedia: fetchSimulatedMedia },
  cloud: { ...CLOUD_PROVIDER, create: cloudTransport, fetchMedia: fetchCloudMedia },
};

/**
 * The provider of an account stored as `kind`: when several drive that kind (a linked phone:
 * Baileys or the simulator), the one WA_PROVIDER names.
 */
export function providerOf(config: Pick<Config, 'waProvider'>, kind: AccountKind): Provider {
  const drivers = Object.values(PROVIDERS).filter((p) => p.kind === kind);
  return drivers.find((p) => p.id === config.waProvider) ?? drivers[0]!;
}

/** What an account stored as `kind` can do. */
export const capabilitiesOf = (config: Pick<Config, 'waProvider'>, kind: AccountKind) =>
  providerOf(config, kind).capabilities;

/** Builds the transport of one account, by its provider. */
export async function createTransport(ctx: AppContext, account: TransportAccount): Promise<Transport> {
  const [row] = await ctx.db
    .select({ kind: accounts.kind })
    .from(accounts)
    .where(eq(accounts.accountId, account.accountId));
  return providerOf(ctx.config, row?.kind ?? 'linked').create(ctx, account);
}
