import { type MessageJob, reportRow } from '@wa/contract';
import type { Cell } from '../../lib/export.ts';
import { formatDateTime } from '../../lib/format.ts';

export function reportRows(jobs: readonly MessageJob[]): Cell[][] {
  return jobs.map((j) => reportRow(j, formatDateTime));
}
