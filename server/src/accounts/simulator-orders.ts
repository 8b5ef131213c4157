import type { SimulatedMessage as SimulatedMessageDto } from '@wa/contract';
import type { AppContext } from '../context.ts';
import type { SimulatorInboxItem } from '../db/schema.ts';
import { conflict } from '../errors.ts';
import { type Actor, authorizeAccount } from '../policy/access.ts';
import { signal } from '../signals.ts';
import { listSentMessages } from '../transport/sent-messages.ts';
import type { SimulatedMessage } from '../transport/simulator/outbox.ts';
import { type AccountCommand, addToSimulatorInbox, findAccount } from './repository.ts';
import { effectiveStatus, sendCommand, waitForCommandTaken } from './service.ts';

const ACTIONS: Record<
  Exclude<AccountCommand, 'restart' | 'terminate' | 'reconnect'>,
  { done: string; idle: string }
> = {
  link: { done: 'Device linked', idle: 'The session is not waiting for a QR scan' },
  disconnect: { done: 'Connection dropped; it reconnects by itself', idle: 'The session is not connected' },
  logout: { done: 'Device unlinked from the phone', idle: 'The session is not running' },
};

/**
 * Acts on the simulated network of an account (scan the QR, lose the connection, unlink from
 * the phone). The order goes through the account's row to whichever node drives it, whose
 * transport carries it out (`Transport.simulated`).
 */
export async function simulatorAction(
  ctx: AppContext,
  user: Actor,
  accountId: string,
  action: Exclude<AccountCommand, 'restart' | 'terminate' | 'reconnect'>,
) {
  const row = await authorizeAccount(ctx.db, user, 'act', accountId);
  const status = effectiveStatus(row);
  const applies =
    row.desiredState === 'active' &&
    (action === 'link' ? status !== 'CONNECTED' : action === 'disconnect' ? status === 'CONNECTED' : true);
  if (!applies) throw conflict(ACTIONS[action].idle);
  const at = await sendCommand(ctx, row, action);
  await waitForCommandTaken(ctx, accountId, at, 5000);
  return { success: true, message: ACTIONS[action].done };
}

/**
 * A person writes `text` to the simulated account (`from` digits or a JID). The text goes through
 * the account's row to whichever node drives it; that node's transport reports it as received,
 * which is the path a text through WhatsApp takes (an opt-out keyword opts the sender out).
 * Answers once the driving node took it.
 */
export async function simulatorInbound(
  ctx: AppContext,
  user: Actor,
  accountId: string,
  input: { from: string; text: string; senderPn?: string; media?: SimulatorInboxItem['media'] },
) {
  const row = await authorizeAccount(ctx.db, user, 'act', accountId);
  if (row.desiredState !== 'active' || effectiveStatus(row) !== 'CONNECTED')
    throw conflict('The session is not connected');
  const from = input.from.includes('@') ? input.from : input.from.replace(/\D/g, '');
  await addToSimulatorInbox(ctx.db, accountId, {
    from,
    text: input.text,
    ...(input.senderPn ? { senderPn: input.senderPn } : {}),
    ...(input.media ? { media: input.media } : {}),
  });
  await signal(ctx, 'session-changed', accountId);
  const until = Date.now() + 5000;
  while (Date.now() < until) {
    const now = await findAccount(ctx.db, accountId);
    if (!now?.simulatorInbox?.length) return { success: true, message: 'Message delivered' };
    await new Promise((r) => setTimeout(r, 50));
  }
  return { success: true, message: 'Message queued: the session will receive it when it is connected' };
}

export async function simulatorOutbox(ctx: AppContext, user: Actor, accountId: string, limit: number) {
  await authorizeAccount(ctx.db, user, 'act', accountId);
  const rows = await listSentMessages(ctx.db, accountId, limit);
  const messages: SimulatedMessageDto[] = rows.reverse().map((r) => {
    const { sessionId: _accountId, ...m } = JSON.parse(r.message) as SimulatedMessage;
    return m;
  });
  return { success: true as const, messages, count: messages.length };
}
