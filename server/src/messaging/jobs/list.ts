import { ACTIVE_JOB_STATUSES, type JobsQuery, type JobsResponse } from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../errors.ts';
import { authorizeUser } from '../../policy/access.ts';
import type { UserRow } from '../../users/repository.ts';
import { presentJob } from '../jobs/present.ts';
import * as repo from '../jobs/repository.ts';
import { holdsOf } from '../limits/repository.ts';
import { seriesByIds } from '../series/repository.ts';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** `from`/`to` bounds, both inclusive; a bare date covers its whole day (UTC). */
export function parseBound(value: string | undefined, end: boolean): Date | undefined {
  if (!value) return undefined;
  const text = DATE_ONLY.test(value) ? `${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : value;
  const d = new Date(text);
  if (Number.isNaN(d.getTime())) throw badRequest(`Invalid date: ${value}`);
  return d;
}

const STATUS_FILTERS: Record<string, repo.JobStatusValue[] | undefined> = {
  all: undefined,
  active: [...ACTIVE_JOB_STATUSES],
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
  const costs = await costsOfJobs(ctx, rows);
  return {
    success: true,
    jobs: rows.map((r) => presentJob(r, now, holds, repeats, costs)),
    message: total === 0 ? 'No message jobs found' : 'Jobs fetched successfully',
    total,
    summary,
    nextCursor: rows.length === limit ? encodeCursor(rows[rows.length - 1]!) : null,
  };
}

/** Why the accounts of these jobs hold their recipients now (only accounts of jobs still sending). */
export function holdsOfJobs(ctx: AppContext, rows: repo.JobRow[]): Promise<Map<string, string>> {
  const accounts = rows
    .filter((r) => r.status === 'pending' || r.status === 'processing' || r.status === 'scheduled')
    .flatMap((r) => r.accountIds ?? [r.accountId]);
  return holdsOf(ctx.db, [...new Set(accounts)]);
}

/** Meta's charge so far of the Cloud API template jobs among these, by id. */
export function costsOfJobs(ctx: AppContext, rows: repo.JobRow[]): Promise<Map<string, number>> {
  return repo.jobsCostUnits(
    ctx.db,
    rows.filter((r) => r.messageType === 'template').map((r) => r.id),
  );
}

/** The series of these jobs that repeat, by id. */
export function seriesOfJobs(ctx: AppContext, rows: repo.JobRow[]) {
  return seriesByIds(ctx.db, [...new Set(rows.flatMap((r) => (r.seriesId ? [r.seriesId] : [])))]);
}
