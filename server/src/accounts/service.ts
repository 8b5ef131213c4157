import {
  ACCOUNT_LIMIT_TEXTS,
  type Account,
  type AccountStatus,
  accountLimitText,
  checkPhone,
} from '@wa/contract';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/client.ts';
import { users } from '../db/schema.ts';
import { badRequest, conflict, forbidden, notFound } from '../errors.ts';
import { authorizeAccount } from '../policy/access.ts';
import { signal } from '../signals.ts';
import type { UserRow } from '../users/repository.ts';
import { type CloudAccountRow, cloudAccountsOf } from './cloud/accounts.ts';
import { type Provider, providerOf } from './providers.ts';
import { acceptProxyUrl, sealProxy } from './proxy.ts';
import {
  type AccountCommand,
  type AccountRow,
  accountOfUserByPhone,
  countAccountsOfUser,
  deleteAccount,
  findAccount,
  insertNewAccount,
  listAccountsOfUser,
  markQrServed,
  newAccountId,
  updateAccount,
} from './repository.ts';
import { liftSendPause } from './send-pause.ts';

export const ACCOUNT_MESSAGES = {
  ...ACCOUNT_LIMIT_TEXTS,
  notFound: 'Session not found',
  terminated: 'Session terminated successfully',
} as const;

/** Whether a node holds a live lease on the account right now. */
export const hasLiveOwner = (row: AccountRow, now = Date.now()) =>
  !!row.ownerNode && !!row.leaseExpiresAt && row.leaseExpiresAt.getTime() > now;

/** The status a user sees: a CONNECTED row whose owner died is no longer connected. */
export function effectiveStatus(row: AccountRow): AccountStatus {
  if (row.status === 'CONNECTED' && !hasLiveOwner(row)) return 'DISCONNECTED';
  return row.status;
}

/** One-to-one sends are paused now (a pause whose end has passed is over, even before the sweep clears it). */
const pausedNow = (row: AccountRow, now = Date.now()) =>
  row.sendPaused && (!row.sendPausedUntil || row.sendPausedUntil.getTime() > now);

export function presentAccount(
  row: AccountRow,
  cloud: Pick<CloudAccountRow, 'qualityRating' | 'messagingLimitTier' | 'verifiedName'> | undefined,
  provider: Provider,
): Account {
  return {
    id: row.id,
    sessionId: row.accountId,
    phoneNumber: row.phoneNumber,
    sessionName: row.name,
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

export async function listAccounts(ctx: AppContext, user: UserRow): Promise<Account[]> {
  const rows = await listAccountsOfUser(ctx.db, user.id);
  const cloud = await cloudAccountsOf(
    ctx.db,
    rows.filter((r) => providerOf(ctx.config, r.kind).connect === 'credentials').map((r) => r.accountId),
  );
  return rows.map((r) => presentAccount(r, cloud.get(r.accountId), providerOf(ctx.config, r.kind)));
}

export async function createAccount(
  ctx: AppContext,
  user: UserRow,
  input: { phoneNumber: string; sessionName: string; proxy?: string },
): Promise<{ accountId: string }> {
  // The phone rule (docs/decisions.md, Phone numbers): '9123456780' is stored as 919123456780.
  const phone = checkPhone(input.phoneNumber, ctx.config.defaultCountryCode);
  if ('error' in phone) throw badRequest(phone.error);
  const digits = phone.number;
  const accountId = newAccountId(digits);
  // A proxy given at creation is checked and sealed before anything is stored.
  const proxy = input.proxy
    ? sealProxy(ctx.config.secretKey, accountId, await acceptProxyUrl(ctx, input.proxy))
    : null;
  await ctx.db.transaction(async (tx) => {
    await assertRoomForAccount(tx, user.id);
    // Under the user's row lock: two Add Instance clicks of one number cannot both pass.
    const twin = await accountOfUserByPhone(tx, user.id, digits);
    if (twin) throw conflict(ACCOUNT_LIMIT_TEXTS.alreadyLinked(digits, twin.name));
    await insertNewAccount(tx, {
      accountId,
      userId: user.id,
      phoneNumber: digits,
      name: input.sessionName,
      proxy,
    });
  });
  await signal(ctx, 'session-changed', accountId);
  return { accountId };
}

export async function accountStatus(ctx: AppContext, user: UserRow, accountId: string) {
  const row = await authorizeAccount(ctx.db, user, 'read', accountId);
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
export async function qrImage(ctx: AppContext, user: UserRow, accountId: string): Promise<Buffer> {
  const row = await authorizeAccount(ctx.db, user, 'act', accountId);
  if (effectiveStatus(row) === 'CONNECTED') throw notFound('Session is already connected');
  if (!row.qr) throw notFound(row.statusReason ?? 'QR code is not ready yet. Please try again.');
  // qrcode loads with the first QR shown, not at start: most of a server's life links nothing.
  const { default: QRCode } = await import('qrcode');
  const png = await QRCode.toBuffer(row.qr, {
    type: 'png',
    errorCorrectionLevel: 'L',
    margin: 2,
    width: 300,
  });
  if (await markQrServed(ctx.db, accountId)) await signal(ctx, 'session-changed', accountId);
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
 * Link by phone number: the code for the account's phone number. A code that still works is
 * answered from the row (any node); otherwise the driving node asks WhatsApp for one on the
 * current linking attempt, or, when there is none or a new code is asked for, on a new one (a
 * restart). The first code served starts the simulator's link timer, as the first QR does.
 */
export async function pairingCode(
  ctx: AppContext,
  user: UserRow,
  accountId: string,
  options: { renew: boolean },
) {
  const row = await authorizeAccount(ctx.db, user, 'act', accountId);
  if (effectiveStatus(row) === 'CONNECTED') throw conflict(PAIRING_MESSAGES.linked);
  const running = row.desiredState === 'active' && hasLiveOwner(row);
  const works = (r: AccountRow) =>
    !!r.pairingCode &&
    !!r.pairingCodeExpiresAt &&
    r.pairingCodeExpiresAt.getTime() > Date.now() + PAIRING_MIN_LEFT_MS;
  const answer = async (r: AccountRow) => {
    if (await markQrServed(ctx.db, accountId)) await signal(ctx, 'session-changed', accountId);
    return { success: true as const, code: r.pairingCode!, expiresAt: r.pairingCodeExpiresAt!.toISOString() };
  };
  if (running && !options.renew && works(row)) return answer(row);

  const requestedAt = new Date();
  await updateAccount(ctx.db, accountId, { pairingRequestedAt: requestedAt });
  // A code belongs to one linking attempt (one socket): a new code needs a new attempt.
  const restarted = !running || options.renew || !!row.pairingCode;
  if (restarted) await restartAccount(ctx, user, accountId);
  else await signal(ctx, 'session-changed', accountId);
  // Until the driving node has taken the restart, its old attempt may store its code again
  // (after requestedAt): that code is not an answer to a new attempt.
  const stale = restarted ? row.pairingCode : null;

  const until = Date.now() + PAIRING_WAIT_MS;
  let last: AccountRow | undefined = row;
  while (Date.now() < until) {
    last = await findAccount(ctx.db, accountId);
    if (!last) throw notFound(ACCOUNT_MESSAGES.notFound);
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
 * docs/decisions.md, Restart: a CONNECTED account stays connected (a running job is never interrupted); a
 * disconnected one reconnects from its stored credentials; one without credentials starts a new QR.
 */
export async function restartAccount(ctx: AppContext, user: UserRow, accountId: string) {
  const row = await authorizeAccount(ctx.db, user, 'act', accountId);
  if (effectiveStatus(row) === 'CONNECTED')
    return { success: true, message: 'Session is already connected', status: 'CONNECTED' as const };
  if (hasLiveOwner(row) && row.desiredState === 'active') {
    await sendCommand(ctx, row, 'restart');
  } else {
    // Nobody drives it: make it claimable by any node, this one first.
    await updateAccount(ctx.db, accountId, {
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
    await signal(ctx, 'session-changed', accountId);
  }
  return { success: true, message: 'Session restart initiated', status: 'PENDING' as const };
}

/** How long a terminate waits for the driving node to log the account out. */
const TERMINATE_WAIT_MS = 10_000;

/**
 * Logs the account out, wipes its credentials and removes the account (its groups and keys go
 * with it). An order on the row, as a restart: the node that drives the account (this one or
 * another) logs out and deletes the row. Nobody drives it, or its node did not answer in time:
 * the row goes now, and a node still driving it sees the row gone and unlinks the device.
 */
export async function terminateAccount(ctx: AppContext, user: UserRow, accountId: string) {
  const row = await authorizeAccount(ctx.db, user, 'act', accountId);
  if (hasLiveOwner(row)) {
    const at = await sendCommand(ctx, row, 'terminate');
    await waitForCommandTaken(ctx, accountId, at, TERMINATE_WAIT_MS);
  }
  await deleteAccount(ctx.db, accountId);
  await signal(ctx, 'session-changed', accountId);
  return { success: true, message: ACCOUNT_MESSAGES.terminated };
}

/** Leaves an order for the node that drives the account and wakes it. */
export async function sendCommand(ctx: AppContext, row: AccountRow, command: AccountCommand): Promise<Date> {
  const at = new Date();
  await updateAccount(ctx.db, row.accountId, { command, commandAt: at });
  await signal(ctx, 'session-changed', row.accountId);
  return at;
}

/** Waits (briefly) until the driving node has taken an order, so that a caller sees its effect. */
export async function waitForCommandTaken(ctx: AppContext, accountId: string, at: Date, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const row = await findAccount(ctx.db, accountId);
    if (!row?.commandAt || row.commandAt.getTime() !== at.getTime()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/**
 * Lifts a pause set by WhatsApp's limits (error 463 or the new-chat quota) before the time
 * WhatsApp gave (docs/decisions.md, Sending pace): the user decides the account may send again.
 */
export async function resumeSending(ctx: AppContext, user: UserRow, accountId: string) {
  const row = await authorizeAccount(ctx.db, user, 'act', accountId);
  if (!(await liftSendPause(ctx.db, row.accountId)))
    return { success: true, message: 'Sending is not paused' };
  await signal(ctx, 'recipients-queued', accountId);
  return { success: true, message: 'Sending resumed' };
}

/**
 * A disabled account's sessions stop: each driving node sees `stopped` and lets the connection
 * go (the credentials stay, so the account reconnects after it is enabled and restarted).
 */
export async function stopAccountsOfUser(ctx: AppContext, userId: string, reason: string): Promise<number> {
  const rows = await listAccountsOfUser(ctx.db, userId);
  for (const row of rows) {
    await updateAccount(ctx.db, row.accountId, { desiredState: 'stopped', statusReason: reason });
    await signal(ctx, 'session-changed', row.accountId);
  }
  return rows.length;
}

/**
 * Inside the transaction that adds an account: the user's row is locked so that two concurrent
 * creates cannot both pass the instance limit; 403 with the limit's text when it is reached.
 */
export async function assertRoomForAccount(tx: Db, userId: string): Promise<void> {
  const [locked] = await tx
    .select({ multi: users.isMultisessionSupported })
    .from(users)
    .where(eq(users.id, userId))
    .for('update');
  if (!locked) throw notFound('User not found');
  const limit = accountLimitText(await countAccountsOfUser(tx, userId), locked.multi);
  if (limit) throw forbidden(limit);
}
