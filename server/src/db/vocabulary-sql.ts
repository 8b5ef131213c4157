import {
  FINISHED_JOB_STATUSES,
  JID_LIKE,
  type JobStatus,
  PAUSABLE_JOB_STATUSES,
  sqlStatusList,
} from '@wa/contract';
import { type SQL, sql } from 'drizzle-orm';

/**
 * contract/jid.ts and contract/job-status.ts as SQL, for statements over stored chat ids and job
 * statuses. The rules are written there once; these are literals in the statement (not
 * parameters), so that the planner sees them as before.
 */

/** `chatId` is a group's (`…@g.us`). */
export const isGroupChat = (chatId: SQL): SQL => sql`${chatId} LIKE ${sql.raw(`'${JID_LIKE.group}'`)}`;
/** `chatId` is a person's, by phone number (`…@s.whatsapp.net`). */
export const isPhoneChat = (chatId: SQL): SQL => sql`${chatId} LIKE ${sql.raw(`'${JID_LIKE.phone}'`)}`;

const statusIn =
  (list: readonly JobStatus[]) =>
  (status: SQL): SQL =>
    sql`${status} IN (${sql.raw(sqlStatusList(list))})`;

/** The job may be paused: it runs, waits to run or waits for its time (it still has recipients to send). */
export const isPausableJob = statusIn(PAUSABLE_JOB_STATUSES);
/** The job has ended (completed or failed). */
export const isFinishedJob = statusIn(FINISHED_JOB_STATUSES);
