/**
 * The MIS report's rows (docs/decisions.md, Kept to the letter), the same in the browser's table and print view and in
 * the server's `mis_report.csv` export.
 */

import { rupeesText } from './cloud.ts';
import { type Cell, csvLine } from './csv.ts';
import { jobWord } from './job-status.ts';
import type { MessageJob } from './jobs.ts';
import { messageText } from './message.ts';

export const REPORT_CSV_FILE = 'mis_report.csv';

/** The columns of mis_report.csv (the print view shows the same). */
export const REPORT_HEADERS = [
  'Job ID',
  'Phone Number',
  'Total Messages',
  'Success',
  'Failed',
  'Created Date',
  'Message Type',
  'Content Preview',
] as const;

/** Content previews are cut at 15 characters. */
export const PREVIEW_LENGTH = 15;

export const cut = (text: string): string =>
  text.length > PREVIEW_LENGTH ? `${text.slice(0, PREVIEW_LENGTH)}...` : text;

/** The phone number part of an account id (before the underscore). */
export const phoneOfAccount = (accountId: string): string => accountId.split('_')[0] ?? accountId;

type ContentOf = Pick<MessageJob, 'messageType' | 'messageContent'>;

/** The words a preview is cut from: the text, the caption, the poll's question, the template's text. */
export const contentText = (job: ContentOf): string => messageText({ ...job, fileName: null });

export const contentPreview = (job: ContentOf): string => cut(contentText(job));

/** One report row; `formatDate` writes Created Date (the browser's, or the server's in the asked zone). */
export function reportRow(job: MessageJob, formatDate: (iso: string) => string): Cell[] {
  return [
    job.id,
    phoneOfAccount(job.sessionId),
    job.progress.total,
    job.results.success,
    job.results.failed,
    formatDate(job.createdAt),
    job.messageType,
    contentPreview(job),
  ];
}

/** The report's header line, for a file written row by row (the BOM goes first). */
export const reportHeaderLine = (): string => csvLine(REPORT_HEADERS);

/**
 * The export's columns: the spec's eight first, as they are, then what a reader of the file
 * needs that the table's preview leaves out: how each job ended, its receipts
 * and the whole content (the 15-character cut is the table's preview, not the file's).
 */
export const REPORT_EXPORT_HEADERS = [
  ...REPORT_HEADERS,
  'Status',
  'Delivered',
  'Read',
  'Replied',
  'Undelivered',
  'Content',
  // Cloud API template jobs: the template's category and Meta's charge for what was delivered.
  'Meta Category',
  'Meta Cost (INR)',
] as const;

/**
 * A share of the sent messages in percent with one decimal (delivered, read, replied or
 * undelivered ÷ sent), or null when nothing was sent.
 */
export function rateOfSent(count: number, sent: number): number | null {
  return sent > 0 ? Math.round((count * 1000) / sent) / 10 : null;
}

/** '92.0%' of the sent messages, or '–' when nothing was sent. */
export const rateText = (count: number, sent: number): string => {
  const rate = rateOfSent(count, sent);
  return rate === null ? '–' : `${rate.toFixed(1)}%`;
};

/** A job's line of mis_report.csv. */
export function reportExportRow(job: MessageJob, formatDate: (iso: string) => string): Cell[] {
  return [
    ...reportRow(job, formatDate),
    // The word the screens show: 'Partly sent', 'waiting'.
    jobWord(job).label,
    job.delivery.delivered,
    job.delivery.read,
    job.delivery.replied,
    job.delivery.undelivered,
    contentText(job),
    job.templateCategory ?? '',
    job.templateCategory === undefined ? '' : rupeesText(job.costUnits ?? 0),
  ];
}

export type ReportTotals = {
  jobs: number;
  total: number;
  success: number;
  failed: number;
  delivered: number;
  read: number;
  replied: number;
  undelivered: number;
  /** Meta's charge over the Cloud API jobs, in ten-thousandths of a rupee. */
  costUnits: number;
};

export const emptyTotals = (): ReportTotals => ({
  jobs: 0,
  total: 0,
  success: 0,
  failed: 0,
  delivered: 0,
  read: 0,
  replied: 0,
  undelivered: 0,
  costUnits: 0,
});

/** Adds a job to the running totals of the export. */
export function addToTotals(t: ReportTotals, job: MessageJob): void {
  t.jobs += 1;
  t.total += job.progress.total;
  t.success += job.results.success;
  t.failed += job.results.failed;
  t.delivered += job.delivery.delivered;
  t.read += job.delivery.read;
  t.replied += job.delivery.replied;
  t.undelivered += job.delivery.undelivered;
  t.costUnits += job.costUnits ?? 0;
}

/** A total with its share of the sent messages: '920 (92.0%)'. */
const withRate = (count: number, sent: number): string => `${count} (${rateText(count, sent)})`;

/**
 * The export's last line: the sums under their columns, 'Total' where the job id stands; the
 * receipts' and replies' totals with their rate of the sent messages.
 */
export function reportTotalsRow(t: ReportTotals): Cell[] {
  return [
    'Total',
    '',
    t.total,
    t.success,
    t.failed,
    '',
    `${t.jobs} ${t.jobs === 1 ? 'job' : 'jobs'}`,
    '',
    '',
    withRate(t.delivered, t.success),
    withRate(t.read, t.success),
    withRate(t.replied, t.success),
    withRate(t.undelivered, t.success),
    '',
    '',
    rupeesText(t.costUnits),
  ];
}

/** The export's header line, for a file written row by row (the BOM goes first). */
export const reportExportHeaderLine = (): string => csvLine(REPORT_EXPORT_HEADERS);
