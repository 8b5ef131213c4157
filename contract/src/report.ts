/**
 * The MIS report's rows (spec section 9), the same in the browser's table and print view and in
 * the server's `mis_report.csv` export.
 */
import { type Cell, csvLine } from './csv.ts';
import type { MessageJob } from './messaging.ts';

export const REPORT_CSV_FILE = 'mis_report.csv';

/** Spec section 9: the columns of mis_report.csv (the print view shows the same). */
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

/** Spec section 9: content previews are cut at 15 characters. */
export const PREVIEW_LENGTH = 15;

export const cut = (text: string): string =>
  text.length > PREVIEW_LENGTH ? `${text.slice(0, PREVIEW_LENGTH)}...` : text;

/** The phone number part of a session id (before the underscore). */
export const phoneOfSession = (sessionId: string): string => sessionId.split('_')[0] ?? sessionId;

export type Poll = { pollName: string; pollOptions: string[]; allowMultipleAnswers: boolean };

/** A poll job's content is the JSON of `{ pollName, pollOptions, options: { allowMultipleAnswers } }`. */
export function parsePoll(content: string): Poll | null {
  try {
    const v = JSON.parse(content) as unknown;
    if (!v || typeof v !== 'object') return null;
    const o = v as {
      pollName?: unknown;
      pollOptions?: unknown;
      options?: { allowMultipleAnswers?: unknown };
    };
    if (typeof o.pollName !== 'string' || !Array.isArray(o.pollOptions)) return null;
    return {
      pollName: o.pollName,
      pollOptions: o.pollOptions.map(String),
      allowMultipleAnswers: o.options?.allowMultipleAnswers === true,
    };
  } catch {
    return null;
  }
}

type ContentOf = Pick<MessageJob, 'messageType' | 'messageContent'>;

/** The words a preview is cut from: the text, the caption, or the poll's question. */
export function contentText(job: ContentOf): string {
  if (job.messageType === 'poll') return parsePoll(job.messageContent)?.pollName ?? job.messageContent;
  return job.messageContent;
}

export const contentPreview = (job: ContentOf): string => cut(contentText(job));

/** One report row; `formatDate` writes Created Date (the browser's, or the server's in the asked zone). */
export function reportRow(job: MessageJob, formatDate: (iso: string) => string): Cell[] {
  return [
    job.id,
    phoneOfSession(job.sessionId),
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
