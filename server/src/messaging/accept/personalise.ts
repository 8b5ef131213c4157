import { randomInt } from 'node:crypto';
import {
  CLOUD_TEXTS,
  chatIdOfPhone,
  fieldKey,
  isBsuid,
  isPersonalised,
  jidUser,
  parseTemplate,
  renderTemplate,
  type SendBody,
  templateValuesContent,
  unknownFieldMessage,
} from '@wa/contract';
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import { badRequest, notFound } from '../../errors.ts';
import { ACCESS_MESSAGES, type Actor, authorizeContactList } from '../../policy/access.ts';
import { type ComposedMessage, individualChatId } from '../compose.ts';

/** A send's individuals with the fields each brings, before validation and opt-outs. */
export type Individuals = {
  /** Every number as given (chatIds, then recipients, then the lists' contacts), for composeSend. */
  chatIds: string[];
  /** Fields by phone chat id; the first source of a number wins. */
  fieldsOf: Map<string, Record<string, string>>;
  /** The field names a `{{field}}` may use: the lists' fields and the recipients' keys. */
  available: string[];
};

/**
 * Gathers the individuals of a send from `chatIds` (no fields), `recipients` (numbers with their
 * own fields) and `contactListIds` (the sender's own lists; another's answers 404).
 */
export async function gatherIndividuals(
  db: Db,
  actor: Actor,
  body: SendBody,
  defaultCallingCode: string,
): Promise<Individuals> {
  const chatIds = [...(body.chatIds ?? [])];
  const fieldsOf = new Map<string, Record<string, string>>();
  const available = new Set<string>();
  for (const r of body.recipients ?? []) {
    chatIds.push(r.chatId);
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.fields ?? {})) {
      const key = fieldKey(k);
      if (!key) continue;
      fields[key] = v;
      available.add(key);
    }
    const chat = individualChatId(r.chatId.trim(), defaultCallingCode);
    if (chat && !fieldsOf.has(chat)) fieldsOf.set(chat, fields);
  }
  const listIds = [...new Set(body.contactListIds ?? [])];
  for (const listId of listIds) {
    const list = await authorizeContactList(db, actor, 'read', listId);
    // Only the sender's own lists: an ADMIN reading a managed user's list does not send to it.
    if (list.userId !== actor.id) throw notFound(ACCESS_MESSAGES.contactListNotFound);
    for (const f of list.fields) available.add(f);
  }
  if (listIds.length > 0) {
    const rows = await queryRows<{ phone_number: string; fields: Record<string, string> }>(
      db,
      sql`SELECT c.phone_number, c.fields FROM contacts c
          WHERE c.list_id = ANY(${sql.param(listIds)}::text[])
          ORDER BY array_position(${sql.param(listIds)}::text[], c.list_id), c.position`,
    );
    for (const r of rows) {
      // Stored by the phone rule already: passed as a JID, so it is not parsed again. A contact
      // known only by BSUID is its own chat id.
      const chat = isBsuid(r.phone_number) ? r.phone_number : chatIdOfPhone(r.phone_number);
      chatIds.push(chat);
      if (!fieldsOf.has(chat)) fieldsOf.set(chat, r.fields);
    }
  }
  return { chatIds, fieldsOf, available: [...available] };
}

/** The words of a message that may be personalised: the text, the caption, the poll's question. */
function templateOf(message: ComposedMessage): string {
  if (message.type === 'text') return message.text;
  if (message.type === 'media') return message.caption;
  if (message.type === 'template') return '';
  return message.poll.pollName;
}

/**
 * A template's body values for each recipient, each value personalised like a text;
 * null when no value has a variable or spintax. Each recipient's values are stored as a JSON array.
 */
export function personaliseTemplate(
  template: { name: string; parameters: readonly string[] },
  chatIds: readonly string[],
  fields: { available: readonly string[]; of: (chatId: string, i: number) => Record<string, string> },
): string[] | null {
  const parsed = template.parameters.map((p) => parseTemplate(p));
  if (!parsed.some(isPersonalised)) return null;
  for (const parts of parsed) {
    const unknown = unknownFieldMessage(parts, fields.available);
    if (unknown) throw badRequest(unknown);
  }
  return chatIds.map((chatId, i) => {
    const values = parsed.map((parts) => renderTemplate(parts, fields.of(chatId, i), randomInt));
    // A value whose fields are empty for this recipient would reach them as nothing.
    const empty = values.findIndex((v) => !v.trim());
    if (empty >= 0)
      throw badRequest(CLOUD_TEXTS.emptyParameterFor(template.name, empty + 1, jidUser(chatId)));
    return templateValuesContent(values);
  });
}

/**
 * Each recipient's own text when the message has variables or spintax (rendered once, here, at
 * acceptance: docs/decisions.md, Personalised text), else null. An unknown field refuses the send.
 * Group sends know one field, `{{group}}`, the group's name.
 */
export function personalise(
  message: ComposedMessage,
  chatIds: readonly string[],
  fields: { available: readonly string[]; of: (chatId: string, i: number) => Record<string, string> },
): string[] | null {
  const parts = parseTemplate(templateOf(message));
  if (!isPersonalised(parts)) return null;
  const unknown = unknownFieldMessage(parts, fields.available);
  if (unknown) throw badRequest(unknown);
  return chatIds.map((chatId, i) => renderTemplate(parts, fields.of(chatId, i), randomInt));
}
