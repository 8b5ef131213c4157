import { type MessageJob, reportRow } from '@wa/contract';
import type { Cell } from '../../lib/export.ts';
import { formatDateTime } from '../../lib/format.ts';

/** Dates picked in the From and To inputs (`YYYY-MM-DD`), as instants in the browser's zone. */
export type DateRange = { from: string; to: string };

const localDay = (ymd: string): Date | null => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(ymd);
  return m ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : null;
};

/**
 * Spec section 5: from-only is on or after the From day, to-only on or before the To day, both
 * inclusive together. Bounds are the start of From and the end of To, local time.
 */
export function rangeBounds(range: DateRange): { from: Date | null; to: Date | null } {
  const from = localDay(range.from);
  const toDay = localDay(range.to);
  const to = toDay ? new Date(toDay.getFullYear(), toDay.getMonth(), toDay.getDate(), 23, 59, 59, 999) : null;
  return { from, to };
}

export function reportRows(jobs: readonly MessageJob[]): Cell[][] {
  return jobs.map((j) => reportRow(j, formatDateTime));
}
