import {
  BSUID_PATTERN,
  CHAT_ID_SUFFIX,
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
/** `chatId` is a channel's (`…@newsletter`). */
export const isChannelChat = (chatId: SQL): SQL => sql`${chatId} LIKE ${sql.raw(`'${JID_LIKE.channel}'`)}`;
/** `chatId` is a person's, by phone number (`…@s.whatsapp.net`). */
export const isPhoneChat = (chatId: SQL): SQL => sql`${chatId} LIKE ${sql.raw(`'${JID_LIKE.phone}'`)}`;

/** `chatId` is a person's, by LID (`…@lid`). */
export const isLidChat = (chatId: SQL): SQL => sql`${chatId} LIKE ${sql.raw(`'${JID_LIKE.lid}'`)}`;

/** The kind of address a person's chat id names ('phone', 'lid', 'bsuid'); null for a group or anything else. */
export const chatAddressKind = (chatId: SQL): SQL =>
  sql`CASE WHEN ${isPhoneChat(chatId)} THEN 'phone' WHEN ${isLidChat(chatId)} THEN 'lid'
           WHEN ${chatId} ~ ${sql.raw(`'${BSUID_PATTERN}'`)} THEN 'bsuid' END`;

/** The address a person's chat id names: a JID's user without its device, a BSUID as it is. */
export const chatAddressValue = (chatId: SQL): SQL =>
  sql`CASE WHEN position('@' in ${chatId}) > 0 THEN split_part(split_part(${chatId}, '@', 1), ':', 1) ELSE ${chatId} END`;

/** The chat id of an address given as its kind and value columns (contract/jid.ts chatIdOfAddress); null for a username. */
export const chatIdOfAddressSql = (kind: SQL, value: SQL): SQL =>
  sql`CASE ${kind} WHEN 'phone' THEN ${value} || ${sql.raw(`'${CHAT_ID_SUFFIX.phone}'`)}
                   WHEN 'lid' THEN ${value} || ${sql.raw(`'${CHAT_ID_SUFFIX.lid}'`)}
                   WHEN 'bsuid' THEN ${value} END`;

/**
 * The chat ids of the person an address of `userId` belongs to (the address's own, and those of
 * every address joined to it in `person_addresses`), as a text array.
 */
export const personChatIds = (userId: SQL, kind: SQL, value: SQL): SQL =>
  sql`ARRAY(SELECT ${chatIdOfAddressSql(kind, value)}
            UNION
            SELECT ${chatIdOfAddressSql(sql.raw('pp.kind'), sql.raw('pp.value'))}
            FROM person_addresses pa JOIN person_addresses pp ON pp.person_id = pa.person_id
            WHERE pa.user_id = ${userId} AND pa.kind = ${kind} AND pa.value = ${value})`;

const statusIn =
  (list: readonly JobStatus[]) =>
  (status: SQL): SQL =>
    sql`${status} IN (${sql.raw(sqlStatusList(list))})`;

/** The job may be paused: it runs, waits to run or waits for its time (it still has recipients to send). */
export const isPausableJob = statusIn(PAUSABLE_JOB_STATUSES);
/** The job has ended (completed or failed). */
export const isFinishedJob = statusIn(FINISHED_JOB_STATUSES);
