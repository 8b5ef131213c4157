import {
  checkPhone,
  INSTANCE_LIMIT_TEXTS,
  instanceLimitText,
  type Session,
  type SessionStatus,
} from '@wa/contract';
import { eq } from 'drizzle-orm';
import QRCode from 'qrcode';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/client.ts';
import { users } from '../db/schema.ts';
import { badRequest, conflict, forbidden, notFound } from '../errors.ts';
import { authorizeSession } from '../policy/access.ts';
import { signal } from '../signals.ts';
import type { UserRow } from '../users/repository.ts';
import { type CloudAccountRow, cloudAccountsOf } from './cloud/accounts.ts';
import { type Provider, providerOf } from './providers.ts';
import { acceptProxyUrl, sealProxy } from './proxy.ts';
import {
  countSessionsOfUser,
  deleteSession,
  findSession,
  insertNewSession,
  listSessionsOfUser,
  markQrServed,
  newSessionId,
  type SessionCommand,
  type SessionRow,
  sessionOfUserByPhone,
  updateSession,
} from './repository.ts';
import { liftSendPause } from './send-pause.ts';

export const SESSION_MESSAGES = {
  ...INSTANCE_LIMIT_TEXTS,
  notFound: 'Session not found',
  terminated: 'Session terminated successfully',
} as const;

/** Whether a node holds a live lease on the session right now. */
export const hasLiveOwner = (row: SessionRow, now = Date.now()) =>
  !!row.ownerNode && !!row.leaseExpiresAt && row.leaseExpiresAt.getTime() > now;

/** The status a user sees: a CONNECTED row whose owner died is no longer connected. */
export function effectiveStatus(row: SessionRow): SessionStatus {
  if (row.status === 'CONNECTED' && !hasLiveOwner(row)) return 'DISCONNECTED';
  return row.status;
}

/** One-to-one sends are paused now (a pause whose end has passed is over, even before the sweep clears it). */
const pausedNow = (row: SessionRow, now = Date.now()) =>
  row.sendPaused && (!row.sendPausedUntil || row.sendPausedUntil.getTime() > now);

export function presentSession(
  row: SessionRow,
  cloud: Pick<CloudAccountRow, 'qualityRating' | 'messagingLimitTier' | 'verifiedName'> | undefined,
  provider: Provider,
): Session {
  return {
    id: row.id,
    sessionId: row.sessionId,
    phoneNumber: row.phoneNumber,
    sessionName: row.sessionName,
    status: effectiveStatus(row),
    statusReason: pausedNow(row) || !row.sendPaused ? row.statusReason : null,
    sendPaused: pausedNow(row),
    sendPausedUntil: pausedNow(row) ? (row.sendPausedUntil?.toISOString() ?? null) : null,
    hasProxy: row.proxy !== null,
    createdAt: row.createdAt.toISOString(),
    kind: provider.id,
    capabilities: provider.capabilities,
    qualityRating: cloud?.qualityRating ?? null,
    messagingLimitTier: cloud?.messagingLimitTier ?? null,
    verifiedName: cloud?.verifiedName ?? null,
  };
}

export async function listSessions(ctx: AppContext, user: UserRow): Promise<Session[]> {
  const rows = await listSessionsOfUser(ctx.db, user.id);
  const cloud = await cloudAccountsOf(
    ctx.db,
    rows.filter((r) => providerOf(ctx.config, r.kind).connect === 'credentials').map((r) => r.sessionId),
  );
  return rows.map((r) => presentSession(r, cloud.get(r.sessionId), providerOf(ctx.config, r.kind)));
}

export async function createInstance(
  ctx: AppContext,
  user: UserRow,
  input: { phoneNumber: string; sessionName: string; proxy?: string },
): Promise<{ sessionId: string }> {
  // The phone rule (docs/decisions.md, Phone numbers): '9123456780' is stored as 919123456780.
  const phone = checkPhone(input.phoneNumber, ctx.config.defaultCountryCode);
  if ('error' in phone) throw badRequest(phone.error);
  const digits = phone.number;
  const sessionId = newSessionId(digits);
  // A proxy given at creation is checked and sealed before anything is stored.
  const proxy = input.proxy
    ? sealProxy(ctx.config.secretKey, sessionId, await acceptProxyUrl(ctx, input.proxy))
    : null;
  await ctx.db.transaction(async (tx) => {
    await assertRoomForInstance(tx, user.id);
    // Under the user's row lock: two Add Instance clicks of one number cannot both pass.
    const twin = await sessionOfUserByPhone(tx, user.id, digits);
    if (twin) throw conflict(INSTANCE_LIMIT_TEXTS.alreadyLinked(digits, twin.sessionName));
    await insertNewSession(tx, {
      sessionId,
      userId: user.id,
      phoneNumber: digits,
      sessionName: input.sessionName,
      proxy,
    });
  });
  await signal(ctx, 'session-changed', sessionId);
  return { sessionId };
}

export async function sessionStatus(ctx: AppContext, user: UserRow, sessionId: string) {
  const row = await authorizeSession(ctx.db, user, 'read', sessionId);
  const status = effectiveStatus(row);
  return {
    success: true as const,
    connected: status === 'CONNECTED',
    status,
    statusReason: row.statusReason,
  };
}

/**
 * The current QR as a PNG. The first time a QR cycle is served is recorded in the row, which
 * is how the simulator (on whichever node drives it) knows when to link by itself.
 */
export async function qrImage(ctx: AppContext, user: UserRow, sessionId: string): Promise<Buffer> {
  const row = await authorizeSession(ctx.db, user, 'act', sessionId);
  if (effectiveStatus(row) === 'CONNECTED') throw notFound('Session is already connected');
  if (!row.qr) throw notFound(row.statusReason ?? 'QR code is not ready yet. Please try again.');
  const png = await QRCode.toBuffer(row.qr, {
    type: 'png',
    errorCorrectionLevel: 'L',
    margin: 2,
    width: 300,
  });
  if (await markQrServed(ctx.db, sessionId)) await signal(ctx, 'session-changed', sessionId);
  return png;
}

export const PAIRING_MESSAGES = {
  linked: 'This account is already linked',
  notReady: 'The pairing code is not ready yet. Please try again.',
} as const;

/** How long the API waits for the driving node to get a code from WhatsApp. */
const PAIRING_WAIT_MS = 30_000;
/** A code about to expire is not handed out: the user could not type it in time. */
const PAIRING_MIN_LEFT_MS = 15_000;

/**
 * Link by phone number: the code for the session's phone number. A code that still works is
 * answered from the row (any node); otherwise the driving node asks WhatsApp for one on the
 * current linking attempt, or, when there is none or a new code is asked for, on a new one (a
 * restart). The first code served starts the simulator's link timer, as the first QR does.
 */
export async function pairingCode(
  ctx: AppContext,
  user: UserRow,
  sessionId: string,
  options: { renew: boolean },
) {
  const row = await authorizeSession(ctx.db, user, 'act', sessionId);
  if (effectiveStatus(row) === 'CONNECTED') throw conflict(PAIRING_MESSAGES.linked);
  const running = row.desiredState === 'active' && hasLiveOwner(row);
  const works = (r: SessionRow) =>
    !!r.pairingCode &&
    !!r.pairingCodeExpiresAt &&
    r.pairingCodeExpiresAt.getTime() > Date.now() + PAIRING_MIN_LEFT_MS;
  const answer = async (r: SessionRow) => {
    if (await markQrServed(ctx.db, sessionId)) await signal(ctx, 'session-changed', sessionId);
    return { success: true as const, code: r.pairingCode!, expiresAt: r.pairingCodeExpiresAt!.toISOString() };
  };
  if (running && !options.renew && works(row)) return answer(row);

  const requestedAt = new Date();
  await updateSession(ctx.db, sessionId, { pairingRequestedAt: requestedAt });
  // A code belongs to one linking attempt (one socket): a new code needs a new attempt.
  const restarted = !running || options.renew || !!row.pairingCode;
  if (restarted) await restartSession(ctx, user, sessionId);
  else await signal(ctx, 'session-changed', sessionId);
  // Until the driving node has taken the restart, its old attempt may store its code again
  // (after requestedAt): that code is not an answer to a new attempt.
  const stale = restarted ? row.pairingCode : null;

  const until = Date.now() + PAIRING_WAIT_MS;
  let last: SessionRow | undefined = row;
  while (Date.now() < until) {
    last = await findSession(ctx.db, sessionId);
    if (!last) throw notFound(SESSION_MESSAGES.notFound);
    if (effectiveStatus(last) === 'CONNECTED') throw conflict(PAIRING_MESSAGES.linked);
    if (
      last.pairingCode &&
      last.pairingCode !== stale &&
      last.pairingCodeAt &&
      last.pairingCodeAt >= requestedAt &&
      works(last)
    )
      return answer(last);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw notFound(last?.statusReason ?? PAIRING_MESSAGES.notReady);
}

/**
 * docs/decisions.md, Restart: a CONNECTED session stays connected (a running job is never interrupted); a
 * disconnected one reconnects from its stored credentials; one without credentials starts a new QR.
 */
export async function restartSession(ctx: AppContext, user: UserRow, sessionId: string) {
  const row = await authorizeSession(ctx.db, user, 'act', sessionId);
  if (effectiveStatus(row) === 'CONNECTED')
    return { success: true, message: 'Session is already connected', status: 'CONNECTED' as const };
  if (hasLiveOwner(row) && row.desiredState === 'active') {
    await sendCommand(ctx, row, 'restart');
  } else {
    // Nobody drives it: make it claimable by any node, this one first.
    await updateSession(ctx.db, sessionId, {
      desiredState: 'active',
      status: 'PENDING',
      statusReason: row.sendPaused ? row.statusReason : null,
      qr: null,
      qrUpdatedAt: null,
      qrServedAt: null,
      command: null,
      commandAt: null,
      ...(hasLiveOwner(row) ? {} : { ownerNode: null, leaseExpiresAt: null }),
    });
    await signal(ctx, 'session-changed', sessionId);
  }
  return { success: true, message: 'Session restart initiated', status: 'PENDING' as const };
}

/** How long a terminate waits for the driving node to log the account out. */
const TERMINATE_WAIT_MS = 10_000;

/**
 * Logs the account out, wipes its credentials and removes the session (its groups and keys go
 * with it). An order on the row, as a restart: the node that drives the session (this one or
 * another) logs out and deletes the row. Nobody drives it, or its node did not answer in time:
 * the row goes now, and a node still driving it sees the row gone and unlinks the device.
 */
export async function terminateSession(ctx: AppContext, user: UserRow, sessionId: string) {
  const row = await authorizeSession(ctx.db, user, 'act', sessionId);
  if (hasLiveOwner(row)) {
    const at = await sendCommand(ctx, row, 'terminate');
    await waitForCommandTaken(ctx, sessionId, at, TERMINATE_WAIT_MS);
  }
  await deleteSession(ctx.db, sessionId);
  await signal(ctx, 'session-changed', sessionId);
  return { success: true, message: SESSION_MESSAGES.terminated };
}

/** Leaves an order for the node that drives the session and wakes it. */
export async function sendCommand(ctx: AppContext, row: SessionRow, command: SessionCommand): Promise<Date> {
  const at = new Date();
  await updateSession(ctx.db, row.sessionId, { command, commandAt: at });
  await signal(ctx, 'session-changed', row.sessionId);
  return at;
}

/** Waits (briefly) until the driving node has taken an order, so that a caller sees its effect. */
export async function waitForCommandTaken(ctx: AppContext, sessionId: string, at: Date, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const row = await findSession(ctx.db, sessionId);
    if (!row?.commandAt || row.commandAt.getTime() !== at.getTime()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/**
 * Lifts a pause set by WhatsApp's limits (error 463 or the new-chat quota) before the time
 * WhatsApp gave (docs/decisions.md, Sending pace): the user decides the account may send again.
 */
export async function resumeSending(ctx: AppContext, user: UserRow, sessionId: string) {
  const row = await authorizeSession(ctx.db, user, 'act', sessionId);
  if (!(await liftSendPause(ctx.db, row.sessionId)))
    return { success: true, message: 'Sending is not paused' };
  await signal(ctx, 'recipients-queued', sessionId);
  return { success: true, message: 'Sending resumed' };
}

/**
 * A disabled account's sessions stop: each driving node sees `stopped` and lets the connection
 * go (the credentials stay, so the account reconnects after it is enabled and restarted).
 */
export async function stopSessionsOfUser(ctx: AppContext, userId: string, reason: string): Promise<number> {
  const rows = await listSessionsOfUser(ctx.db, userId);
  for (const row of rows) {
    await updateSession(ctx.db, row.sessionId, { desiredState: 'stopped', statusReason: reason });
    await signal(ctx, 'session-changed', row.sessionId);
  }
  return rows.length;
}

/**
 * Inside the transaction that adds an account: the user's row is locked so that two concurrent
 * creates cannot both pass the instance limit; 403 with the limit's text when it is reached.
 */
export async function assertRoomForInstance(tx: Db, userId: string): Promise<void> {
  const [locked] = await tx
    .select({ multi: users.isMultisessionSupported })
    .from(users)
    .where(eq(users.id, userId))
    .for('update');
  if (!locked) throw notFound('User not found');
  const limit = instanceLimitText(await countSessionsOfUser(tx, userId), locked.multi);
  if (limit) throw forbidden(limit);
}
