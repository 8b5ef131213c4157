import { isPausable, type JobDetail, type MessageJob } from '@wa/contract';
import type { SeriesRow } from '../series/repository.ts';
import type { JobRow, RecipientRow } from './repository.ts';

const iso = (d: Date | null | undefined): string | null => (d ? new Date(d).toISOString() : null);

/**
 * A job row as the API shows it. `holds`: why accounts' recipients wait now
 * (quiet hours, a daily limit), shown as the reason of their jobs that still have work.
 */
export function presentJob(
  row: JobRow,
  now = new Date(),
  holds?: Map<string, string>,
  series?: Map<string, Pick<SeriesRow, 'every' | 'until' | 'endedAt'>>,
  costs?: Map<string, number>,
): MessageJob {
  const repeat = row.seriesId ? series?.get(row.seriesId) : undefined;
  const completed = row.sentCount + row.failedCount + row.cancelledCount;
  const started = row.startedAt ? new Date(row.startedAt).getTime() : null;
  const ended = row.finishedAt ? new Date(row.finishedAt).getTime() : now.getTime();
  return {
    id: row.id,
    sessionId: row.sessionId,
    ...(row.sessionIds ? { sessionIds: row.sessionIds } : {}),
    audience: row.audience,
    messageType: row.messageType,
    isScheduled: row.isScheduled,
    scheduledTime: iso(row.scheduledAt),
    status: row.status,
    statusReason: row.statusReason ?? (isPausable(row.status) ? holdOf(row, holds) : null),
    progress: {
      completed,
      total: row.total,
      percentComplete: row.total > 0 ? Math.round((completed * 100) / row.total) : 0,
    },
    results: {
      success: row.sentCount,
      failed: row.failedCount,
      delivered: row.deliveredCount,
      read: row.readCount,
    },
    delivery: {
      delivered: row.deliveredCount,
      read: row.readCount,
      replied: row.repliedCount,
      undelivered: row.undeliveredCount,
    },
    createdAt: iso(row.createdAt)!,
    elapsedTimeMs: started === null ? 0 : Math.max(0, ended - started),
    messageContent: row.content,
    mediaMime: row.mediaMime,
    fileName: row.fileName,
    ...(row.statusStyle ? { statusStyle: row.statusStyle } : {}),
    ...(repeat
      ? {
          repeat: {
            seriesId: row.seriesId!,
            every: repeat.every,
            until: iso(repeat.until),
            active: repeat.endedAt === null,
          },
        }
      : {}),
    ...(row.messageType === 'template'
      ? { templateCategory: templateCategoryOf(row.content), costUnits: costs?.get(row.id) ?? 0 }
      : {}),
  };
}

/** A template job's category, from its stored template (StoredTemplate), as Meta's pricing names it: 'utility'. */
function templateCategoryOf(content: string): string {
  try {
    const category = (JSON.parse(content) as { category?: unknown }).category;
    return typeof category === 'string' ? category.toLowerCase() : '';
  } catch {
    return '';
  }
}

/**
 * Why the job's recipients wait: its account's hold (for one-to-one chats, also its paused new
 * chats: limits/repository.ts holdsOf); for a job spread over accounts, only when every one of
 * them is held (the first one's reason), since otherwise the job still moves.
 */
function holdOf(row: JobRow, holds: Map<string, string> | undefined): string | null {
  const reasons = (row.sessionIds ?? [row.sessionId]).map(
    (id) => holds?.get(id) ?? (row.audience === 'individuals' ? holds?.get(`${id}@direct`) : undefined),
  );
  return reasons.every((r) => r !== undefined) ? (reasons[0] ?? null) : null;
}

const INDIVIDUAL = /^([0-9]+)@s\.whatsapp\.net$/;

export function presentRecipient(row: RecipientRow): JobDetail {
  return {
    // Individuals are stored without a name: their number is the name.
    chatName: row.chatName ?? INDIVIDUAL.exec(row.chatId)?.[1] ?? null,
    chatId: row.chatId,
    status: row.status,
    sentAt: iso(row.sentAt),
    deliveredAt: iso(row.deliveredAt),
    readAt: iso(row.readAt),
    error: row.error,
    sentTo: row.sentTo,
    sessionId: row.sessionId,
    ...(row.content === null ? {} : { content: row.content }),
    repliedAt: iso(row.repliedAt),
    replyText: row.replyText,
    undeliveredAt: iso(row.undeliveredAt),
    undeliveredReason: row.undeliveredReason,
    ...(row.pricingCategory === null
      ? {}
      : { pricingCategory: row.pricingCategory, costUnits: row.costUnits }),
  };
}
