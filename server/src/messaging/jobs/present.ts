import {
  addressOfChatId,
  displayAddress,
  isPausable,
  type JobDetail,
  type MessageJob,
  metaCategoryOf,
} from '@wa/contract';
import { holdsOneToOneOnly } from '../limits/allowance.ts';
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
    sessionId: row.accountId,
    ...(row.accountIds ? { sessionIds: row.accountIds } : {}),
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
      ? {
          templateCategory:
            metaCategoryOf({ messageType: row.messageType, messageContent: row.content }) ?? '',
          costUnits: costs?.get(row.id) ?? 0,
        }
      : {}),
  };
}

/**
 * Why the job's recipients wait: its account's hold (for one-to-one chats, also its paused new
 * chats: limits/repository.ts holdsOf); for a job spread over accounts, only when every one of
 * them is held (the first one's reason), since otherwise the job still moves.
 */
function holdOf(row: JobRow, holds: Map<string, string> | undefined): string | null {
  // A scheduled job waits for its time, not for its account's caps of today.
  if (row.status === 'scheduled') return null;
  const reasons = (row.accountIds ?? [row.accountId]).map((id) => {
    const hold = holds?.get(id);
    // The warm-up and the new-contact cap hold one-to-one chats only: a group job goes on.
    if (hold !== undefined && (row.audience === 'individuals' || !holdsOneToOneOnly(hold))) return hold;
    return row.audience === 'individuals' ? holds?.get(`${id}@direct`) : undefined;
  });
  return reasons.every((r) => r !== undefined) ? (reasons[0] ?? null) : null;
}

/**
 * A recipient as Job Details shows it. Individuals are stored without a name: their name is their
 * number where known, else their username, else a short form of their id (`known`: what WhatsApp
 * showed of a person written to by LID or BSUID), never a raw `@lid`.
 */
export function presentRecipient(
  row: RecipientRow,
  known?: { phone: string | null; username: string | null },
): JobDetail {
  return {
    chatName: row.chatName ?? (addressOfChatId(row.chatId) ? displayAddress(row.chatId, known) : null),
    chatId: row.chatId,
    status: row.status,
    sentAt: iso(row.sentAt),
    deliveredAt: iso(row.deliveredAt),
    readAt: iso(row.readAt),
    error: row.error,
    sentTo: row.sentTo,
    sessionId: row.accountId,
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
