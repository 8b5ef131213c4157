import type { AppContext } from '../context.ts';
import { createDbAuthStore } from './auth-store.ts';
import { SimulatorTransport } from './simulator/transport.ts';
import type { Transport, TransportSession } from './types.ts';

/** Builds the transport `config.waProvider` names for one session; Baileys is loaded only when used. */
export async function createTransport(ctx: AppContext, session: TransportSession): Promise<Transport> {
  const auth = createDbAuthStore(ctx.db, session.sessionId, ctx.config.secretKey);
  const log = ctx.log.child({ sessionId: session.sessionId });
  if (ctx.config.waProvider === 'simulator') {
    const sim = ctx.config.simulator;
    return new SimulatorTransport(session, {
      db: ctx.db,
      auth,
      log,
      linkAfterMs: sim.linkAfterMs,
      groups: sim.groups,
      sendLatencyMs: sim.sendLatencyMs,
      outboxFile: sim.outboxFile,
    });
  }
  const { BaileysTransport } = await import('./baileys/transport.ts');
  return new BaileysTransport(session, { db: ctx.db, auth, log });
}
