import { setTimeout as sleep } from 'node:timers/promises';
import type {
  DashboardResponse,
  JobDetailsQuery,
  JobDetailsResponse,
  JobsQuery,
  JobsResponse,
  ReportExportQuery,
  RetryResponse,
  SendBody,
  SendResponse,
} from '@wa/contract';
import { CSV_BOM, csvLine, reportHeaderLine, reportRow, SPREAD_TEXTS } from '@wa/contract';
import { optedOutAmong } from '../contacts/service.ts';
import type { AppContext } from '../context.ts';
import { debitCredits } from '../credits/credits.ts';
import { badRequest, conflict, forbidden, MESSAGES, notFound, paymentRequired } from '../errors.ts';
import { groupFigures, groupSubjects } from '../groups/repository.ts';
import { newId, sha256 } from '../ids.ts';
import { authorizeGroups, authorizeJob, authorizeSession, authorizeUser } from '../policy/access.ts';
import { firstSessionOfUser, type SessionRow } from '../sessions/repository.ts';
import { signal } from '../signals.ts';
import type { UserRow } from '../users/repository.ts';
import { type Audience, composeSend, storedContent } from './compose.ts';
import { failForbiddenWaitingIn } from './dispatch-store.ts';
import * as repo from './jobs-repository.ts';
import { JOB_MESSAGES } from './messages.ts';
import { gatherIndividuals, personalise } from './personalise.ts';
import { holdsOf } from './policy-repository.ts';
import { presentJob, presentRecipient } from './present.ts';
import { repeatOf } from './recurring.ts';
import { cancelSeriesRow, insertSeries, seriesByIds } from './series-repository.ts';
import { remainingAllowanceToday, splitByAllowance } from './spread.ts';

// ---------------------------------------------------------------- send

/**
 * Accepts a send: checks the permission, the session, the payload (spec order), then in one
 * transaction reserves one credit per recipient, stores the file once, inserts the job and all
 * its recipients. Nothing is half-accepted. The session's dispatcher is woken afterwards.
 */
export async function acceptSend(
  ctx: AppContext,
  user: UserRow,
  sessionId: string,
  body: SendBody,
  audience: Audience,
  idempotencyKey?: string,
): Promise<SendResponse> {
  if (audience === 'individuals' && !user.isBulkMessagingEnabled) throw forbidden(JOB_MESSAGES.bulkDisabled);
  const session = await authorizeSession(ctx.db, user, 'act', sessionId, MESSAGES.noSession);
  const accounts = await sharingAccounts(ctx, user, session, body, audience);
  const idempotency =
    idempotencyKey === undefined ? null : idempotencyOf(idempotencyKey, audience, sessionId, body);
  if (idempotency) {
    // A repeat answers the first job even when it would no longer pass (a past schedule time, a spent balance).
    const previous = await repo.findIdempotentAnswer(ctx.db, user.id, idempotency.key);
    if (previous) return replay(previous, idempotency.requestHash);
  }
  const cc = ctx.config.defaultCountryCode;
  const individuals = audience === 'individuals' ? await gatherIndividuals(ctx.db, user, body, cc) : null;
  const composed = composeSend(individuals ? { ...body, chatIds: individuals.chatIds } : body, audience, cc);
  const { message, scheduledAt } = composed;
  const repeat = repeatOf(body, scheduledAt);
  let { chatIds } = composed;
  // Only groups of this account's list: a phone number here would bypass the bulk flag.
  if (audience === 'groups')
    await authorizeGroups(ctx.db, user, 'act', sessionId, chatIds, MESSAGES.noSession);

  let chatNames: Array<string | null>;
  let optedOut: string[] = [];
  let contents: string[] | null;
  if (audience === 'groups') {
    const subjects = await groupSubjects(ctx.db, sessionId, chatIds);
    chatNames = chatIds.map((id) => subjects.get(id) ?? null);
    contents = personalise(message, chatIds, {
      available: ['group'],
      of: (_, i) => ({ group: chatNames[i] ?? '' }),
    });
  } else {
    // Opted-out numbers are left out before anything is reserved (DECISIONS.md, Opt-outs).
    const numbers = chatIds.map((id) => id.split('@')[0]!);
    const out = await optedOutAmong(ctx.db, user.id, numbers);
    if (out.size > 0) {
      optedOut = numbers.filter((n) => out.has(n));
      chatIds = chatIds.filter((_, i) => !out.has(numbers[i]!));
      if (chatIds.length === 0) throw badRequest(JOB_MESSAGES.allOptedOut);
    }
    // A number is its own name: the API shows the digits (present.ts), nothing to store.
    chatNames = chatIds.map(() => null);
    const fieldsOf = individuals!.fieldsOf;
    contents = personalise(message, chatIds, {
      available: individuals!.available,
      of: (chatId) => fieldsOf.get(chatId) ?? {},
    });
  }

  const jobId = newId();
  const mediaId = message.type === 'media' ? sha256(message.data) : null;
  const n = chatIds.length;
  const noun = audience === 'groups' ? (n === 1 ? 'group' : 'groups') : n === 1 ? 'contact' : 'contacts';
  const answer: SendResponse = {
    success: true,
    message: scheduledAt
      ? `Message scheduled for ${n} ${noun} at ${scheduledAt.toISOString()}`
      : `Message sending initiated for ${n} ${noun}`,
    totalChats: n,
    jobId,
    ...(optedOut.length > 0 ? { skipped: { optedOut } } : {}),
  };
  // Spread over accounts: in proportion to what each may still send today (a down one: nothing).
  const split =
    accounts.length > 1
      ? splitByAllowance(
          chatIds.length,
          await Promise.all(
            accounts.map((a) =>
              a.status === 'CONNECTED' ? remainingAllowanceToday(ctx.db, a.sessionId, ctx.config) : 0,
            ),
          ),
        )
      : [];
  const repeated = await ctx.db.transaction(async (tx) => {
    if (idempotency) {
      // First in the transaction: a concurrent duplicate waits here until this one commits, then replays it.
      const previous = await repo.claimIdempotencyKey(tx, user.id, idempotency.key, idempotency.requestHash);
      if (previous) return previous;
    }
    if (repeat) {
      // Each occurrence is reserved when it starts; a balance short already now is refused now.
      if ((await repo.creditsOf(tx, user.id)) < chatIds.length) throw paymentRequired(MESSAGES.creditShort);
    } else {
      const balance = await debitCredits(tx, user.id, chatIds.length, 'send', { jobId, actorId: user.id });
      if (balance === null) throw paymentRequired(MESSAGES.creditShort);
    }
    if (message.type === 'media')
      await repo.storeMedia(tx, { id: mediaId!, mime: message.mime, bytes: message.data });
    const now = new Date();
    const seriesId = repeat ? newId() : null;
    if (repeat)
      await insertSeries(tx, {
        id: seriesId!,
        userId: user.id,
        sessionId,
        audience,
        every: repeat.every,
        until: repeat.until,
        anchorAt: scheduledAt!,
        chatIds,
        // A null name (a number: its digits are its name) is kept null in the array.
        chatNames: chatNames as string[],
        contents,
      });
    await repo.insertJob(tx, {
      id: jobId,
      userId: user.id,
      sessionId,
      audience,
      messageType: message.type,
      content: storedContent(message),
      poll: message.type === 'poll' ? message.poll : null,
      mediaId,
      mediaMime: message.type === 'media' ? message.mime : null,
      fileName: message.type === 'media' ? message.fileName : null,
      isScheduled: scheduledAt !== null,
      scheduledAt,
      status: scheduledAt ? 'scheduled' : 'pending',
      total: chatIds.length,
      createdAt: now,
      seriesId,
      awaitingStart: repeat !== null,
      sessionIds: accounts.length > 1 ? accounts.map((a) => a.sessionId) : null,
    });
    if (!repeat)
      await repo.insertRecipients(
        tx,
        { jobId, sessionId, dueAt: scheduledAt ?? now },
        chatIds,
        chatNames,
        contents,
        accounts.length > 1 ? split.map((i) => accounts[i]!.sessionId) : null,
      );
    if (idempotency) await repo.saveIdempotentAnswer(tx, user.id, idempotency.key, answer);
    return null;
  });
  if (repeated) return replay(repeated, idempotency!.requestHash);
  if (!repeat) for (const a of accounts) await signal(ctx, 'recipients-queued', a.sessionId);
  return answer;
}

/**
 * The accounts that share a send: the path's session, then the body's `sessionIds` (duplicates
 * dropped). Each must be one the user may send from and belong to the path session's owner; an
 * unknown one and another user's get the same 400. Group sends and repeating sends go from one
 * account.
 */
async function sharingAccounts(
  ctx: AppContext,
  user: UserRow,
  session: SessionRow,
  body: SendBody,
  audience: Audience,
): Promise<SessionRow[]> {
  const more = [...new Set((body.sessionIds ?? []).map((id) => id.trim()))].filter(
    (id) => id !== session.sessionId,
  );
  if (more.length === 0) return [session];
  if (audience === 'groups') throw badRequest(SPREAD_TEXTS.groups);
  if (body.repeat) throw badRequest(SPREAD_TEXTS.repeat);
  const accounts = [session];
  for (const id of more) {
    const row = await authorizeSession(ctx.db, user, 'act', id).catch(() => null);
    if (!row || row.userId !== session.userId) throw badRequest(SPREAD_TEXTS.notYours(id));
    accounts.push(row);
  }
  return accounts;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The key as sent and the fingerprint of the request it stands for (route, session, body). */
function idempotencyOf(key: string, audience: Audience, sessionId: string, body: SendBody) {
  if (!IDEMPOTENCY_KEY.test(key))
    throw badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters');
  return { key, requestHash: sha256(JSON.stringify([audience, sessionId, body])) };
}

/** The first answer for a repeated key, or 409 when the key came with another request. */
function replay(previous: repo.IdempotentAnswer, requestHash: string): SendResponse {
  if (previous.requestHash !== requestHash || !previous.response) {
    throw conflict('Idempotency-Key reused with a different request');
  }
  return previous.response as SendResponse;
}

// ---------------------------------------------------------------- jobs

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** `from`/`to` bounds, both inclusive; a bare date covers its whole day (UTC). */
function parseBound(value: string | undefined, end: boolean): Date | undefined {
  if (!value) return undefined;
  const text = DATE_ONLY.test(value) ? `${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : value;
  const d = new Date(text);
  if (Number.isNaN(d.getTime())) throw badRequest(`Invalid date: ${value}`);
  return d;
}

const STATUS_FILTERS: Record<string, repo.JobStatusValue[] | undefined> = {
  all: undefined,
  active: ['pending', 'processing', 'paused'],
  paused: ['paused'],
  pending: ['pending'],
  processing: ['processing'],
  scheduled: ['scheduled'],
  completed: ['completed'],
  failed: ['failed'],
};

export const DEFAULT_JOBS_LIMIT = 200;

/** The opaque `nextCursor`: the last job's creation time and id. */
const encodeCursor = (row: repo.JobRow) =>
  Buffer.from(JSON.stringify([new Date(row.createdAt).toISOString(), row.id])).toString('base64url');

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const createdAt = new Date(at);
    if (typeof id === 'string' && !Number.isNaN(createdAt.getTime())) return { createdAt, id };
  } catch {
    // Falls through to the error below.
  }
  throw badRequest('Invalid cursor');
}

export async function listJobs(
  ctx: AppContext,
  viewer: UserRow,
  userId: string,
  query: JobsQuery,
): Promise<JobsResponse> {
  await authorizeUser(ctx.db, viewer, 'read', userId);
  const range = { from: parseBound(query.from, false), to: parseBound(query.to, true), q: query.q };
  const statuses = STATUS_FILTERS[query.status ?? 'all'];
  const limit = query.limit ?? DEFAULT_JOBS_LIMIT;
  const [rows, summary] = await Promise.all([
    repo.listJobs(ctx.db, userId, {
      ...range,
      statuses,
      after: query.cursor ? decodeCursor(query.cursor) : undefined,
      limit,
      offset: query.offset ?? 0,
    }),
    repo.summariseJobs(ctx.db, userId, range),
  ]);
  // The total of the tab comes from the same aggregate as the tabs' counts (one scan, not two).
  const total = statuses ? statuses.reduce((n, s) => n + summary.byStatus[s], 0) : summary.jobs;
  const now = new Date();
  const holds = await holdsOfJobs(ctx, rows);
  const repeats = await seriesOfJobs(ctx, rows);
  return {
    success: true,
    jobs: rows.map((r) => presentJob(r, now, holds, repeats)),
    message: total === 0 ? 'No message jobs found' : 'Jobs fetched successfully',
    total,
    summary,
    nextCursor: rows.length === limit ? encodeCursor(rows[rows.length - 1]!) : null,
  };
}

/** Rows read per statement while a report is written: memory stays flat whatever the history. */
const EXPORT_PAGE = 1000;

/** A time zone for the report's dates: an IANA name the server knows, else 400. */
function timeZoneOf(name: string | undefined): string {
  const zone = name ?? 'Asia/Kolkata';
  try {
    new Intl.DateTimeFormat('en-IN', { timeZone: zone });
    return zone;
  } catch {
    throw badRequest(`Unknown time zone: ${zone}`);
  }
}

/**
 * `mis_report.csv` of a user's jobs in the range (and search), newest first: checks access and
 * the query before the first byte, then yields the BOM and header line and one line per job,
 * reading the jobs a page at a time by keyset.
 */
export async function exportReport(
  ctx: AppContext,
  viewer: UserRow,
  userId: string,
  query: ReportExportQuery,
): Promise<AsyncGenerator<string>> {
  await authorizeUser(ctx.db, viewer, 'read', userId);
  const range = { from: parseBound(query.from, false), to: parseBound(query.to, true), q: query.q };
  const dates = new Intl.DateTimeFormat('en-IN', {
    timeZone: timeZoneOf(query.tz),
    // The fields of `toLocaleString('en-IN')`, as the browser's report shows them.
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    second: '2-digit',
  });
  const formatDate = (iso: string) => dates.format(new Date(iso));
  return (async function* () {
    yield `${CSV_BOM}${reportHeaderLine()}`;
    let after: { createdAt: Date; id: string } | undefined;
    const now = new Date();
    for (;;) {
      const rows = await repo.listJobs(ctx.db, userId, { ...range, after, limit: EXPORT_PAGE, offset: 0 });
      if (rows.length > 0) yield rows.map((r) => csvLine(reportRow(presentJob(r, now), formatDate))).join('');
      if (rows.length < EXPORT_PAGE) return;
      const last = rows[rows.length - 1]!;
      after = { createdAt: last.createdAt, id: last.id };
    }
  })();
}

/** Why the accounts of these jobs hold their recipients now (only accounts of jobs still sending). */
function holdsOfJobs(ctx: AppContext, rows: repo.JobRow[]): Promise<Map<string, string>> {
  const sessions = rows
    .filter((r) => r.status === 'pending' || r.status === 'processing' || r.status === 'scheduled')
    .flatMap((r) => r.sessionIds ?? [r.sessionId]);
  return holdsOf(ctx.db, [...new Set(sessions)]);
}

/** The series of these jobs that repeat, by id. */
function seriesOfJobs(ctx: AppContext, rows: repo.JobRow[]) {
  return seriesByIds(ctx.db, [...new Set(rows.flatMap((r) => (r.seriesId ? [r.seriesId] : [])))]);
}

export const DEFAULT_DETAILS_LIMIT = 1000;

export async function jobDetails(
  ctx: AppContext,
  viewer: UserRow,
  jobId: string,
  query: JobDetailsQuery = {},
): Promise<JobDetailsResponse> {
  const job = await authorizeJob(ctx.db, viewer, 'read', jobId);
  const recipients = await repo.jobRecipients(
    ctx.db,
    jobId,
    query.detailsLimit ?? DEFAULT_DETAILS_LIMIT,
    query.detailsOffset ?? 0,
  );
  let mediaData: string | null = null;
  if (job.mediaId && query.media !== '0') {
    const file = await repo.findMedia(ctx.db, job.mediaId);
    mediaData = file ? file.bytes.toString('base64') : null;
  }
  return {
    success: true,
    job: {
      ...presentJob(job, new Date(), await holdsOfJobs(ctx, [job]), await seriesOfJobs(ctx, [job])),
      mediaData,
      details: recipients.map(presentRecipient),
      detailsTotal: job.total,
    },
    message: 'Job details fetched successfully',
  };
}

/**
 * Queues the failed recipients of a job again, after reserving their credits, on the given
 * session (one of the user's) or the job's own. Owner only.
 */
export async function retryJob(
  ctx: AppContext,
  user: UserRow,
  jobId: string,
  sessionId: string | undefined,
): Promise<RetryResponse> {
  const job = await authorizeJob(ctx.db, user, 'act', jobId);
  // The flag is read again: an admin may have revoked it since the job was accepted.
  if (job.audience === 'individuals' && !user.isBulkMessagingEnabled)
    throw forbidden(JOB_MESSAGES.bulkDisabled);
  const target = sessionId?.trim() || job.sessionId;
  await authorizeSession(ctx.db, user, 'act', target, MESSAGES.noSession);
  const retried = await ctx.db.transaction(async (tx) => {
    const locked = await repo.lockJob(tx, jobId);
    if (!locked) throw notFound(JOB_MESSAGES.jobNotFound);
    const failed = await repo.countFailed(tx, jobId);
    if (failed === 0) throw badRequest(JOB_MESSAGES.nothingToRetry);
    const balance = await debitCredits(tx, user.id, failed, 'retry', { jobId, actorId: user.id });
    if (balance === null) throw paymentRequired(MESSAGES.creditShort);
    const requeued = await repo.requeueFailed(tx, jobId, target);
    // The job row is locked and the dispatcher never changes failed recipients, so both counts agree.
    if (requeued !== failed)
      throw new Error(`retry of job ${jobId}: ${requeued} requeued, ${failed} charged`);
    await repo.reopenJob(tx, jobId, target, requeued);
    return requeued;
  });
  await signal(ctx, 'recipients-queued', target);
  return {
    success: true,
    message: `Retrying ${retried} failed ${retried === 1 ? 'message' : 'messages'}`,
    retried,
  };
}

/** How long a pause waits for the message in flight to be recorded before it answers. */
const PAUSE_IN_FLIGHT_WAIT_MS = 30_000;

/**
 * Pauses a running or scheduled job (owner only): nothing more of it is claimed. The answer
 * comes once the message in flight, if any, has been recorded, so nothing is sent after it.
 */
export async function pauseJob(ctx: AppContext, user: UserRow, jobId: string): Promise<void> {
  await authorizeJob(ctx.db, user, 'act', jobId);
  await ctx.db.transaction(async (tx) => {
    const locked = await repo.lockJob(tx, jobId);
    if (!locked) throw notFound(JOB_MESSAGES.jobNotFound);
    if (!repo.PAUSABLE.includes(locked.status)) throw badRequest(JOB_MESSAGES.notPausable);
    await repo.pauseJob(tx, jobId);
  });
  const until = Date.now() + PAUSE_IN_FLIGHT_WAIT_MS;
  while ((await repo.inFlight(ctx.db, jobId)).live > 0 && Date.now() < until) await sleep(50);
}

/** Resumes a paused job (owner only): its recipients are queued again where they were. */
export async function resumeJob(ctx: AppContext, user: UserRow, jobId: string): Promise<void> {
  await authorizeJob(ctx.db, user, 'act', jobId);
  const sessions = await ctx.db.transaction(async (tx) => {
    const locked = await repo.lockJob(tx, jobId);
    if (!locked) throw notFound(JOB_MESSAGES.jobNotFound);
    if (locked.status !== 'paused') throw badRequest(JOB_MESSAGES.notResumable);
    return repo.resumeJob(tx, jobId);
  });
  for (const sessionId of sessions) await signal(ctx, 'recipients-queued', sessionId);
}

/**
 * Deletes a job in any status: cancels (and refunds) what is unsent, waits for a send in flight
 * to be recorded (or declares it unknown when its lease ran out), then deletes the job and its
 * recipients. The ledger keeps its rows. Owner only.
 */
export async function deleteJob(ctx: AppContext, user: UserRow, jobId: string): Promise<void> {
  const job = await authorizeJob(ctx.db, user, 'act', jobId);
  const pollMs = 50;
  for (;;) {
    const done = await ctx.db.transaction(async (tx) => {
      const locked = await repo.lockJob(tx, jobId);
      if (!locked) return true;
      // The occurrence of a series awaiting its start is the series' future: deleting it ends the series.
      if (locked.awaitingStart && locked.seriesId) {
        for (const id of await cancelSeriesRow(tx, locked.seriesId)) await repo.deleteJobRow(tx, id);
        return true;
      }
      await repo.cancelAndRefundQueued(tx, jobId);
      const flight = await repo.inFlight(tx, jobId);
      if (flight.live > 0) return false;
      if (flight.expired > 0) {
        await repo.failAndRefundSendingOfJob(tx, jobId);
      }
      await repo.deleteJobRow(tx, jobId);
      return true;
    });
    if (done) break;
    await sleep(pollMs);
  }
  if (job.mediaId) {
    // A concurrent send of the same file may have just referred to it: then it stays.
    await repo.deleteOrphanMedia(ctx.db, job.mediaId).catch(() => {});
  }
}

// ---------------------------------------------------------------- dashboard

export async function dashboard(
  ctx: AppContext,
  user: UserRow,
  sessionId: string | undefined,
): Promise<DashboardResponse> {
  let sid: string | null;
  if (sessionId) {
    sid = (await authorizeSession(ctx.db, user, 'act', sessionId, MESSAGES.noSession)).sessionId;
  } else {
    sid = await firstSessionOfUser(ctx.db, user.id);
  }
  const groups = sid ? await groupFigures(ctx.db, sid) : { groups: 0, members: 0 };
  const figures = await repo.messageFigures(ctx.db, user.id);
  const recent = await repo.listJobs(ctx.db, user.id, { limit: 5, offset: 0 });
  const now = new Date();
  return {
    success: true,
    sessionId: sid,
    totalGroups: groups.groups,
    totalMembers: groups.members,
    messagesSent: figures.sent,
    delivered: figures.delivered,
    deliveryRate: figures.sent > 0 ? Math.round((figures.delivered * 1000) / figures.sent) / 10 : 0,
    recentJobs: recent.map((r) => presentJob(r, now)),
  };
}

// ---------------------------------------------------------------- an admin's change

/**
 * An admin disabled the user or revoked their bulk flag: what waits to be sent and may no longer
 * be (everything, or the individual sends) fails with the reason and is refunded at once. The
 * claim skips such recipients too, so a send racing this change is the only one that can finish.
 * Failed, not cancelled: after the account is enabled again the owner can retry them.
 */
export async function failForbiddenWaiting(ctx: AppContext, userId: string): Promise<number> {
  const groups = await failForbiddenWaitingIn(ctx.db, userId);
  return groups.reduce((sum, g) => sum + g.count, 0);
}
