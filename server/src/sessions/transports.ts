import type { AppContext } from '../context.ts';
import { type GroupRow, groupsOf } from '../groups/repository.ts';
import { createDbAuthStore } from '../transport/auth-store.ts';
import { SimulatorTransport } from '../transport/simulator/transport.ts';
import type { CachedGroup, GroupLookup, Transport, TransportSession } from '../transport/types.ts';

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

/** The session's group cache, read one group at a time. */
export function groupLookup(ctx: AppContext, sessionId: string): GroupLookup {
  return async (groupId) => {
    const [row] = await groupsOf(ctx.db, sessionId, [groupId]);
    return row ? cachedGroupOf(row) : undefined;
  };
}

/** Builds the transport `config.waProvider` names for one session; Baileys is loaded only when used. */
export async function createTransport(ctx: AppContext, session: TransportSession): Promise<Transport> {
  const auth = createDbAuthStore(ctx.db, session.sessionId, ctx.config.secretKey);
  const log = ctx.log.child({ sessionId: session.sessionId });
  if (ctx.config.waProvider === 'simulator') {
    const sim = ctx.config.simulator;
    return new SimulatorTransport(session, {
      auth,
      log,
      linkAfterMs: sim.linkAfterMs,
      groups: sim.groups,
      sendLatencyMs: sim.sendLatencyMs,
      outboxFile: sim.outboxFile,
    });
  }
  const { BaileysTransport } = await import('../transport/baileys/transport.ts');
  const { waEndpoint } = await import('../transport/baileys/endpoint.ts');
  return new BaileysTransport(session, {
    db: ctx.db,
    auth,
    log,
    groups: groupLookup(ctx, session.sessionId),
    version: ctx.config.waVersion,
    mediaUploadTimeoutMs: ctx.config.sendTimeoutMs,
    rateLimitPauseMs: ctx.config.rateLimitPauseMs,
    ...waEndpoint(ctx.config, ctx.log),
  });
}
