import {
  addToTotals,
  emptyTotals,
  type MessageJob,
  REPORT_EXPORT_HEADERS,
  reportExportRow,
  reportTotalsRow,
} from '@wa/contract';
import type { Cell } from '../../lib/export.ts';
import { formatDateTime } from '../../lib/format.ts';

/**
 * The print view's table: what mis_report.csv holds for these jobs (the spec's columns, then
 * status, receipts, the whole content and Meta's charge) and its totals line.
 */
export function printedReport(jobs: readonly MessageJob[]): { headers: readonly string[]; rows: Cell[][] } {
  const totals = emptyTotals();
  const rows = jobs.map((j) => {
    addToTotals(totals, j);
    return reportExportRow(j, formatDateTime);
  });
  return { headers: REPORT_EXPORT_HEADERS, rows: jobs.length > 0 ? [...rows, reportTotalsRow(totals)] : [] };
}
