import {
  type Address,
  chatIdOfAddress,
  displayAddress,
  INBOX_TEXTS,
  type InboxCountsResponse,
  type InboxListResponse,
  type InboxMessage,
  type InboxQuery,
  type InboxReplyBody,
  type InboxReplyResponse,
  type InboxState,
  type InboxThread,
  type InboxThreadResponse,
  type SendBody,
} from '@wa/contract';
import { inServiceWindow, SERVICE_WINDOW_MS } from '../../accounts/cloud/service-windows.ts';
import { capabilitiesOf, providerOf } from '../../accounts/providers.ts';
import { findAccount } from '../../accounts/repository.ts';
import { chatIdsOf } from '../../contacts/people.ts';
import type { AppContext } from '../../context.ts';
import { badRequest, forbidden, notFound, unavailable } from '../../errors.ts';
import { type Actor, authorizeAccount, authorizeUser, relationOf } from '../../policy/access.ts';
import { findUserById, type UserRow } from '../../users/repository.ts';
import { acceptSend } from '../accept/send.ts';
import { keepAnswer } from './incoming.ts';
import * as store from './store.ts';

/** Threads a page shows when the query names no limit. */
export const INBOX_PAGE = 50;

/** Whose inbox the viewer reads: their own, or (`userId`) a user an admin manages. */
async function readableOwner(ctx: AppContext, viewer: Actor, userId: string | undefined): Promise<string> {
  if (!userId || userId === viewer.id) return viewer.id;
  await authorizeUser(ctx.db, viewer, 'read', userId);
  return userId;
}

/**
 * The thread `personId` as `viewer` may see it: their own (`mine`), or a managed user's
 * (read-only). Another user's, or none, is 404 (nobody learns what exists elsewhere).
 */
async function threadFor(ctx: AppContext, viewer: Actor, personId: string) {
  const row = await store.findThread(ctx.db, personId, null);
  if (!row) throw notFound(INBOX_TEXTS.notFound);
  if (row.user_id === viewer.id) return { row, mine: true };
  const owner = await findUserById(ctx.db, row.user_id);
  if (!owner || relationOf(viewer, owner) !== 'managingAdmin') throw notFound(INBOX_TEXTS.notFound);
  return { row, mine: false };
}

/** A thread's person's addresses, from the row's `kind:value` list. */
function addressesOf(row: store.ThreadRow): Address[] {
  return (row.addresses ?? []).map((a) => {
    const i = a.indexOf(':');
    return { kind: a.slice(0, i), value: a.slice(i + 1) } as Address;
  });
}

const iso = (v: Date | string) => new Date(v).toISOString();

function present(ctx: AppContext, row: store.ThreadRow, now = Date.now()): InboxThread {
  const addresses = addressesOf(row);
  const phone = addresses.find((a) => a.kind === 'phone')?.value ?? null;
  const username = addresses.find((a) => a.kind === 'username')?.value ?? null;
  const first = addresses.map(chatIdOfAddress).find((c) => c !== null) ?? addresses[0]?.value ?? '';
  const windowed = row.session_kind !== null && capabilitiesOf(ctx.config, row.session_kind).serviceWindow;
  const closes = row.window_from ? new Date(row.window_from).getTime() + SERVICE_WINDOW_MS : null;
  return {
    personId: row.person_id,
    name: row.contact_name ?? row.name,
    phone: displayAddress(first, { phone, username }),
    lastMessage: {
      text: row.last_text,
      at: iso(row.last_at),
      direction: row.last_direction,
      type: row.last_type,
    },
    unread: row.unread,
    state: row.state,
    sessionId: row.session_id,
    windowClosesAt: windowed && closes !== null && closes > now ? new Date(closes).toISOString() : null,
    optedOut: row.opted_out,
  };
}

const encodeCursor = (row: store.ThreadRow) =>
  Buffer.from(`${iso(row.last_at)}|${row.person_id}`).toString('base64url');

function decodeCursor(cursor: string): { at: Date; personId: string } {
  const [at, personId] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const when = new Date(at ?? '');
  if (!personId || Number.isNaN(when.getTime())) throw badRequest('Invalid cursor');
  return { at: when, personId };
}

/** `GET /api/inbox`: a page of threads, newest first, filtered. */
export async function listInbox(
  ctx: AppContext,
  viewer: Actor,
  query: InboxQuery,
): Promise<InboxListResponse> {
  const userId = await readableOwner(ctx, viewer, query.userId);
  const limit = query.limit ?? INBOX_PAGE;
  const flag = (v: 'true' | 'false' | undefined) => (v === undefined ? undefined : v === 'true');
  const rows = await store.listThreads(ctx.db, userId, {
    accountId: query.sessionId,
    jobId: query.jobId,
    state: query.state,
    needsReply: flag(query.needsReply),
    optedOut: flag(query.optedOut),
    q: query.q,
    after: query.cursor ? decodeCursor(query.cursor) : undefined,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  return {
    success: true,
    threads: page.map((r) => present(ctx, r)),
    nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!) : null,
  };
}

/** `GET /api/inbox/counts`. */
export async function inboxCounts(
  ctx: AppContext,
  viewer: Actor,
  userId: string | undefined,
): Promise<InboxCountsResponse> {
  const owner = await readableOwner(ctx, viewer, userId);
  return { success: true, unreadThreads: await store.countUnread(ctx.db, owner) };
}

/** `GET /api/inbox/:personId`: the thread with its messages both ways; the owner's reading marks it read. */
export async function openThread(
  ctx: AppContext,
  viewer: Actor,
  personId: string,
  userId: string | undefined,
): Promise<InboxThreadResponse> {
  const owner = await readableOwner(ctx, viewer, userId);
  const row = await store.findThread(ctx.db, personId, owner);
  if (!row) throw notFound(INBOX_TEXTS.notFound);
  const messages = await store.threadMessages(ctx.db, owner, personId, chatIdsOf(addressesOf(row)));
  // An admin reading a managed user's inbox leaves it unread for the user.
  if (owner === viewer.id && row.unread > 0) {
    await store.markRead(ctx.db, owner, personId);
    row.unread = 0;
  }
  return {
    success: true,
    thread: present(ctx, row),
    messages: messages.map(
      (m): InboxMessage => ({
        id: m.id,
        direction: m.direction,
        sessionId: m.session_id,
        at: iso(m.at),
        type: m.type,
        text: m.text,
        media: m.media
          ? { mime: m.media.mime, fileName: m.media.fileName, url: `/api/inbox/${personId}/media/${m.id}` }
          : null,
        jobId: m.job_id,
        status: m.status,
      }),
    ),
  };
}

/** The thread `personId` for a change by `viewer`: theirs; a managed user's is read-only (403). */
async function ownThread(ctx: AppContext, viewer: Actor, personId: string): Promise<store.ThreadRow> {
  const { row, mine } = await threadFor(ctx, viewer, personId);
  if (!mine) throw forbidden(INBOX_TEXTS.readOnly);
  return row;
}

/** `POST /api/inbox/:personId/state`: done, or open again. */
export async function setThreadState(
  ctx: AppContext,
  viewer: Actor,
  personId: string,
  state: InboxState,
): Promise<{ success: true; state: InboxState }> {
  await ownThread(ctx, viewer, personId);
  await store.setState(ctx.db, viewer.id, personId, state);
  return { success: true, state };
}

/**
 * `POST /api/inbox/:personId/reply`: an answer to one person through one of the user's accounts,
 * as a job of its own through the send path (charged like any message, paced, the account's health
 * respected). It goes to the address the person last wrote to that account from, else to one the
 * account can reach (a number; a business-scoped id only through a Cloud number). Refused before
 * anything is reserved: a person who opted out by any address, and free-form through a Cloud
 * number outside the person's 24-hour window (a template may go).
 */
export async function replyInThread(
  ctx: AppContext,
  viewer: UserRow,
  personId: string,
  body: InboxReplyBody,
  idempotencyKey: string | undefined,
): Promise<InboxReplyResponse> {
  const row = await ownThread(ctx, viewer, personId);
  const account = await authorizeAccount(ctx.db, viewer, 'act', body.sessionId);
  if (row.opted_out) throw badRequest(INBOX_TEXTS.optedOut);
  const can = capabilitiesOf(ctx.config, account.kind);
  const reachable = addressesOf(row).filter(
    (a) => a.kind === 'phone' || (a.kind === 'bsuid' && can.businessScopedIds === true),
  );
  const last = await store.lastChatFrom(ctx.db, viewer.id, personId, account.accountId);
  const target =
    reachable.find((a) => chatIdOfAddress(a) === last) ??
    reachable.find((a) => a.kind === 'phone') ??
    reachable[0];
  if (!target) throw badRequest(INBOX_TEXTS.unreachable);
  const to = chatIdOfAddress(target)!;
  if (can.serviceWindow && body.type !== 'template') {
    const open = await inServiceWindow(ctx.db, account.accountId, [target.value]);
    if (!open.has(target.value)) throw badRequest(INBOX_TEXTS.windowClosed);
  }
  const sent = await acceptSend(
    ctx,
    viewer,
    account.accountId,
    { ...(body as SendBody), chatIds: [to] },
    'individuals',
    idempotencyKey,
  );
  await keepAnswer(ctx, { accountId: account.accountId, userId: viewer.id }, to, sent.jobId, personId);
  return { success: true, jobId: sent.jobId, creditsCharged: sent.creditsCharged };
}

/** `GET /api/inbox/:personId/media/:messageId`: a file the person sent, fetched again through its account's provider. */
export async function threadMedia(
  ctx: AppContext,
  viewer: Actor,
  personId: string,
  messageId: string,
  userId: string | undefined,
) {
  const owner = await readableOwner(ctx, viewer, userId);
  if (!(await store.findThread(ctx.db, personId, owner))) throw notFound(INBOX_TEXTS.notFound);
  const found = await store.findMedia(ctx.db, owner, personId, messageId);
  if (!found) throw notFound(INBOX_TEXTS.noMedia);
  const account = await findAccount(ctx.db, found.session_id);
  if (!account) throw notFound(INBOX_TEXTS.noMedia);
  try {
    const body = await providerOf(ctx.config, account.kind).fetchMedia(
      ctx,
      found.session_id,
      found.media.ref,
    );
    return { mime: found.media.mime, fileName: found.media.fileName, body };
  } catch (err) {
    ctx.log.info({ err, accountId: found.session_id }, 'an incoming file could not be fetched again');
    throw unavailable(INBOX_TEXTS.mediaGone);
  }
}
