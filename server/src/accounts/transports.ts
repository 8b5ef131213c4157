import { matchOptOut } from '../contacts/opt-out-words.ts';
import type { AppContext } from '../context.ts';
import { type GroupRow, groupsOf } from '../groups/repository.ts';
import { createDbAuthStore } from '../transport/auth-store.ts';
import { CloudTransport } from '../transport/cloud/transport.ts';
import { lidTextStore, numberStore } from '../transport/number-lookups.ts';
import { privacyTokenStore } from '../transport/privacy-tokens.ts';
import { restrictionSteps } from '../transport/restriction-steps.ts';
import { sentCopies } from '../transport/sent-messages.ts';
import { sentPolls } from '../transport/sent-polls.ts';
import { SimulatorTransport } from '../transport/simulator/transport.ts';
import type { CachedGroup, GroupLookup, Transport, TransportAccount } from '../transport/types.ts';
import {
  cloudCredentials,
  graphClient,
  readPortfolio,
  recordPhoneInfo,
  recordPortfolio,
} from './cloud/accounts.ts';
import { marketingStoppedFor, recordMarketingPreference } from './cloud/marketing-preferences.ts';
import { portfolioKey, portfolioLimit } from './cloud/messaging-limit.ts';
import { inServiceWindow } from './cloud/service-windows.ts';
import { accountProxy } from './proxy.ts';

/** A row of the group cache as a transport reads it. */
export function cachedGroupOf(row: GroupRow): CachedGroup {
  return {
    id: row.groupId,
    subject: row.subject,
    owner: row.owner,
    creation: row.createdAt ? Math.floor(row.createdAt.getTime() / 1000) : null,
    announce: row.announce,
    ...(row.addressingMode ? { addressingMode: row.addressingMode } : {}),
    ...(row.ephemeralDuration ? { ephemeralDuration: row.ephemeralDuration } : {}),
    isAdmin: row.isAdmin,
    participants: row.participants.map((p) => ({
      id: p.id,
      phoneNumber: p.phoneNumber,
      lid: p.lid,
      admin: p.admin,
    })),
  };
}

/** The account's group cache, read one group at a time. */
export function groupLookup(ctx: AppContext, accountId: string): GroupLookup {
  return async (groupId) => {
    const [row] = await groupsOf(ctx.db, accountId, [groupId]);
    return row ? cachedGroupOf(row) : undefined;
  };
}

/** A simulated linked phone's transport. */
export function simulatorTransport(ctx: AppContext, account: TransportAccount): Transport {
  const sim = ctx.config.simulator;
  return new SimulatorTransport(account, {
    auth: createDbAuthStore(ctx.db, account.accountId, ctx.config.secretKey),
    log: ctx.log.child({ accountId: account.accountId }),
    linkAfterMs: sim.linkAfterMs,
    groups: sim.groups,
    sendLatencyMs: sim.sendLatencyMs,
    outboxFile: sim.outboxFile,
  });
}

/** A linked phone's transport on the real network; Baileys is loaded only when used. */
export async function baileysTransport(ctx: AppContext, account: TransportAccount): Promise<Transport> {
  const { BaileysTransport } = await import('../transport/baileys/transport.ts');
  const { waEndpoint } = await import('../transport/baileys/endpoint.ts');
  const proxy = await accountProxy(ctx, account.accountId);
  return new BaileysTransport(account, {
    storage: {
      auth: createDbAuthStore(ctx.db, account.accountId, ctx.config.secretKey),
      sentCopy: sentCopies(ctx.db, account.accountId),
      sentPolls: sentPolls(ctx.db, account.accountId),
      numbers: numberStore(ctx.db, account.accountId),
      lidTexts: lidTextStore(ctx.db, account.accountId),
      restrictionSteps: restrictionSteps(ctx.db, account.accountId),
      privacyTokens: privacyTokenStore(ctx.db, account.accountId),
    },
    lookupBatches: ctx.config.lookupBatches,
    isOptOut: (text) => matchOptOut(text, ctx.config.optOutKeywords) !== null,
    log: ctx.log.child({ accountId: account.accountId }),
    groups: groupLookup(ctx, account.accountId),
    version: ctx.config.waVersion,
    // Below SEND_TIMEOUT_MS: an upload that outlasts the send's own time left the send running.
    mediaUploadTimeoutMs: Math.floor(ctx.config.sendTimeoutMs * 0.75),
    rateLimitPauseMs: ctx.config.rateLimitPauseMs,
    restrictionRetryMs: { first: ctx.config.restrictionRetryMs, max: 32 * ctx.config.restrictionRetryMs },
    ...waEndpoint(ctx.config, ctx.log),
    ...(proxy ? { proxy } : {}),
  });
}

/**
 * A Cloud API account's transport, with what it needs from the database injected. The numbers of
 * one business portfolio share one messaging limit, counted in the database
 * (cloud/messaging-limit.ts: Meta sets it per business portfolio since October 2025). An account
 * connected before the portfolio was asked has it read here, once.
 */
export async function cloudTransport(ctx: AppContext, account: TransportAccount): Promise<Transport> {
  const cloud = await cloudCredentials(ctx.db, ctx.config.secretKey, account.accountId);
  if (!cloud) throw new Error(`No Cloud API credentials for ${account.accountId}`);
  const log = ctx.log.child({ accountId: account.accountId });
  const client = graphClient(ctx.config, cloud.accessToken);
  if (cloud.portfolioId === null) {
    cloud.portfolioId = await readPortfolio(client, cloud.wabaId, log);
    if (cloud.portfolioId !== null) await recordPortfolio(ctx.db, cloud, cloud.portfolioId);
  }
  return new CloudTransport(account, {
    client,
    phoneNumberId: cloud.phoneNumberId,
    log,
    perSecond: cloud.throughputLevel === 'HIGH' ? 1000 : undefined,
    tier: cloud.messagingLimitTier,
    messagingLimit: portfolioLimit(ctx.db, portfolioKey(cloud)),
    marketingStopped: (to, template) => marketingStoppedFor(ctx.db, account.accountId, to, template),
    onMarketingStopped: (to) =>
      recordMarketingPreference(ctx.db, {
        wabaId: cloud.wabaId,
        address: to,
        stopped: true,
        at: new Date(),
        source: 'error_131050',
      }),
    onPhoneInfo: (info) => recordPhoneInfo(ctx.db, account.accountId, info),
    inServiceWindow: async (to) => (await inServiceWindow(ctx.db, account.accountId, [to])).has(to),
  });
}
