import {
  parseTemplateValues,
  type SendBody,
  SPREAD_TEXTS,
  templateBodyText,
  templateValuesContent,
} from '@wa/contract';
import { sql } from 'drizzle-orm';
import { capabilitiesOf } from '../../accounts/providers.ts';
import type { AccountRow } from '../../accounts/repository.ts';
import type { Config } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { queryRows } from '../../db/client.ts';
import { badRequest } from '../../errors.ts';
import type { ComposedMessage } from '../compose.ts';
import { remainingAllowanceToday, splitByAllowance } from './spread.ts';

/**
 * Which account (an index into `accounts`) sends each recipient of a job spread over several: by
 * what each may still send today (a down one: nothing), or with `coldToCloud` each
 * number a linked phone of the job has messaged before through that phone (the test of the
 * new-contact cap: a sent recipient of that account and chat) and the rest through the Cloud API
 * accounts, split between them by allowance.
 */
export async function routeRecipients(
  ctx: AppContext,
  accounts: AccountRow[],
  chatIds: string[],
  body: Pick<SendBody, 'coldToCloud'>,
): Promise<number[]> {
  const allowances = () =>
    Promise.all(
      accounts.map((a) =>
        a.status === 'CONNECTED' ? remainingAllowanceToday(ctx.db, a.accountId, ctx.config) : 0,
      ),
    );
  if (body.coldToCloud !== true) return splitByAllowance(chatIds.length, await allowances());
  const cold = (a: AccountRow) => capabilitiesOf(ctx.config, a.kind).coldOutreach;
  const phones = accounts.flatMap((a, i) => (cold(a) ? [] : [i]));
  const clouds = accounts.flatMap((a, i) => (cold(a) ? [i] : []));
  if (phones.length === 0 || clouds.length === 0) throw badRequest(SPREAD_TEXTS.coldNeedsBothKinds);
  const known = await knownByPhones(
    ctx,
    phones.map((i) => accounts[i]!.accountId),
    chatIds,
  );
  const unknown = chatIds.filter((id) => !known.has(id));
  const each = await allowances();
  const coldSplit = splitByAllowance(
    unknown.length,
    clouds.map((i) => each[i]!),
  );
  let next = 0;
  return chatIds.map((id) => {
    const phone = known.get(id);
    if (phone !== undefined) return accounts.findIndex((a) => a.accountId === phone);
    return clouds[coldSplit[next++]!]!;
  });
}

/** The numbers among `chatIds` that one of `accountIds` has sent to, each with the first such account. */
async function knownByPhones(ctx: AppContext, accountIds: string[], chatIds: string[]) {
  const rows = await queryRows<{ chat_id: string; session_id: string }>(
    ctx.db,
    sql`SELECT DISTINCT ON (r.chat_id) r.chat_id, r.session_id
        FROM message_job_recipients r
        WHERE r.session_id = ANY(${sql.param(accountIds)}::text[])
          AND r.chat_id = ANY(${sql.param(chatIds)}::text[]) AND r.status = 'sent'
        ORDER BY r.chat_id, array_position(${sql.param(accountIds)}::text[], r.session_id)`,
  );
  return new Map(rows.map((r) => [r.chat_id, r.session_id]));
}

/**
 * The recipients' own contents of a template job that linked phones share: a phone's
 * recipient gets the template's body with its values as text; a Cloud recipient keeps its values
 * (a JSON array) or, when not personalised, the job's. Null when no phone shares the job.
 */
export function templateContents(
  message: ComposedMessage,
  sendsTemplate: (i: number) => boolean,
  contents: string[] | null,
  n: number,
): string[] | null {
  if (message.type !== 'template' || message.template.bodyText === undefined) return contents;
  if (Array.from({ length: n }, (_, i) => sendsTemplate(i)).every(Boolean)) return contents;
  const { bodyText, parameters, parameterNames } = message.template;
  return Array.from({ length: n }, (_, i) => {
    const own = contents?.[i];
    if (sendsTemplate(i)) return own ?? templateValuesContent(parameters);
    const values = own === undefined ? parameters : parseTemplateValues(own);
    if (!values) throw new Error(`recipient content is no template values: ${own?.slice(0, 80)}`);
    return templateBodyText(bodyText, values, parameterNames);
  });
}

/**
 * How many recipients go through linked phones and how many through accounts made for cold
 * contacts (Cloud API numbers), for a job over both (else undefined).
 */
export function splitByKind(config: Pick<Config, 'waProvider'>, accounts: AccountRow[], split: number[]) {
  const cold = accounts.map((a) => capabilitiesOf(config, a.kind).coldOutreach);
  if (!cold.includes(true) || !cold.includes(false)) return undefined;
  const viaCloud = split.filter((i) => cold[i]).length;
  return { viaPhones: split.length - viaCloud, viaCloud };
}
