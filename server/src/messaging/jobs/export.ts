import type { ReportExportQuery } from '@wa/contract';
import {
  addToTotals,
  CSV_BOM,
  csvLine,
  emptyTotals,
  reportExportHeaderLine,
  reportExportRow,
  reportTotalsRow,
} from '@wa/contract';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../errors.ts';
import { authorizeUser } from '../../policy/access.ts';
import type { UserRow } from '../../users/repository.ts';
import { presentJob } from '../jobs/present.ts';
import * as repo from '../jobs/repository.ts';

import { costsOfJobs, holdsOfJobs, parseBound } from './list.ts';

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
    yield `${CSV_BOM}${reportExportHeaderLine()}`;
    let after: { createdAt: Date; id: string } | undefined;
    const now = new Date();
    const totals = emptyTotals();
    for (;;) {
      const rows = await repo.listJobs(ctx.db, userId, { ...range, after, limit: EXPORT_PAGE, offset: 0 });
      const [costs, holds] = await Promise.all([costsOfJobs(ctx, rows), holdsOfJobs(ctx, rows)]);
      const jobs = rows.map((r) => presentJob(r, now, holds, undefined, costs));
      for (const job of jobs) addToTotals(totals, job);
      if (jobs.length > 0) yield jobs.map((job) => csvLine(reportExportRow(job, formatDate))).join('');
      if (rows.length < EXPORT_PAGE) {
        yield csvLine(reportTotalsRow(totals));
        return;
      }
      const last = rows[rows.length - 1]!;
      after = { createdAt: last.createdAt, id: last.id };
    }
  })();
}
