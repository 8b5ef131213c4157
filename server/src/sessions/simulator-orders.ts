import type { SimulatedMessage as SimulatedMessageDto } from '@wa/contract';
import type { AppContext } from '../context.ts';
import { conflict } from '../errors.ts';
import { type Actor, authorizeSession } from '../policy/access.ts';
import { listSentMessages } from '../transport/sent-messages.ts';
import type { SimulatedMessage } from '../transport/simulator/transport.ts';
import type { SessionCommand } from './repository.ts';
import { effectiveStatus, sendCommand, waitForCommandTaken } from './service.ts';

const ACTIONS: Record<Exclude<SessionCommand, 'restart'>, { done: string; idle: string }> = {
  link: { done: 'Device linked', idle: 'The session is not waiting for a QR scan' },
  disconnect: { done: 'Connection dropped; it reconnects by itself', idle: 'The session is not connected' },
  logout: { done: 'Device unlinked from the phone', idle: 'The session is not running' },
};

/**
 * Acts on the simulated network of a session (scan the QR, lose the connection, unlink from
 * the phone). The order goes through the session's row to whichever node drives it, whose
 * transport carries it out (`Transport.simulated`).
 */
export async function simulatorAction(
  ctx: AppContext,
  user: Actor,
  sessionId: string,
  action: Exclude<SessionCommand, 'restart'>,
) {
  const row = await authorizeSession(ctx.db, user, 'act', sessionId);
  const status = effectiveStatus(row);
  const applies =
    row.desiredState === 'active' &&
    (action === 'link' ? status !== 'CONNECTED' : action === 'disconnect' ? status === 'CONNECTED' : true);
  if (!applies) throw conflict(ACTIONS[action].idle);
  const at = await sendCommand(ctx, row, action);
  await waitForCommandTaken(ctx, sessionId, at, 5000);
  return { success: true, message: ACTIONS[action].done };
}

export async function simulatorOutbox(ctx: AppContext, user: Actor, sessionId: string, limit: number) {
  await authorizeSession(ctx.db, user, 'act', sessionId);
  const rows = await listSentMessages(ctx.db, sessionId, limit);
  const messages: SimulatedMessageDto[] = rows.reverse().map((r) => {
    const { sessionId: _sessionId, ...m } = JSON.parse(r.message) as SimulatedMessage;
    return m;
  });
  return { success: true as const, messages, count: messages.length };
}
