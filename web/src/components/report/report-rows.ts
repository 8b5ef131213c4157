import type { MessageJob } from '@wa/contract';
import type { Cell } from '../../lib/export.ts';
import { formatDateTime, phoneOfSession } from '../../lib/format.ts';

/** Spec section 9: content previews are cut at 15 characters. */
export const PREVIEW_LENGTH = 15;

export const cut = (text: string) =>
  text.length > PREVIEW_LENGTH ? `${text.slice(0, PREVIEW_LENGTH)}...` : text;

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

/** The words a preview is cut from: the text, the caption, or the poll's question. */
export function contentText(job: MessageJob): string {
  if (job.messageType === 'poll') return parsePoll(job.messageContent)?.pollName ?? job.messageContent;
  return job.messageContent;
}

export const contentPreview = (job: MessageJob) => cut(contentText(job));

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

export function inRange(iso: string, bounds: { from: Date | null; to: Date | null }): boolean {
  const t = new Date(iso).getTime();
  if (bounds.from && t < bounds.from.getTime()) return false;
  if (bounds.to && t > bounds.to.getTime()) return false;
  return true;
}

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

export function reportRows(jobs: readonly MessageJob[]): Cell[][] {
  return jobs.map((j) => [
    j.id,
    phoneOfSession(j.sessionId),
    j.progress.total,
    j.results.success,
    j.results.failed,
    formatDateTime(j.createdAt),
    j.messageType,
    contentPreview(j),
  ]);
}
