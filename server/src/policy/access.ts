import { CHANNEL_TEXTS, isChannelJid, isGroupJid } from '@wa/contract';
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import {
  accounts,
  apiKeys,
  contactLists,
  messageJobs,
  users,
  waChannels,
  waGroups,
  webhooks,
} from '../db/schema.ts';
import { badRequest, notFound } from '../errors.ts';

/**
 * The one access policy (ARCHITECTURE principle 8): who may read or act on a user, account,
 * group, job, media and ledger. Services ask it; a refusal looks like a missing resource (404),
 * so nobody learns what exists in another account.
 */

/**
 * `ownOnly`: the actor is an API key, which acts on its own user's resources only (an admin's
 * key does not reach the users the admin manages).
 */
export type Actor = { id: string; role: 'ADMIN' | 'USER'; ownOnly?: boolean };
export type Resource =
  | 'user'
  | 'session'
  | 'group'
  | 'job'
  | 'media'
  | 'ledger'
  | 'webhook'
  | 'apiKey'
  | 'contactList';
/** read: see it; act: use or change it (send, retry, delete); manage: the admin API (edit a user, grant credits). */
export type Action = 'read' | 'act' | 'manage';
/** How the actor stands to the user who owns the resource. */
export type Relation = 'owner' | 'managingAdmin';

export const PERMISSIONS: Record<Resource, Record<Action, readonly Relation[]>> = {
  user: { read: ['owner', 'managingAdmin'], act: ['owner'], manage: ['managingAdmin'] },
  session: { read: ['owner', 'managingAdmin'], act: ['owner'], manage: [] },
  group: { read: ['owner', 'managingAdmin'], act: ['owner'], manage: [] },
  job: { read: ['owner', 'managingAdmin'], act: ['owner'], manage: [] },
  media: { read: ['owner', 'managingAdmin'], act: ['owner'], manage: [] },
  ledger: { read: ['owner', 'managingAdmin'], act: [], manage: ['managingAdmin'] },
  // A webhook's secret and an API key act as the user: nobody else sees or changes them.
  webhook: { read: ['owner'], act: ['owner'], manage: [] },
  apiKey: { read: ['owner'], act: ['owner'], manage: [] },
  // Contacts are people's numbers and names: only the user who keeps the list sees them.
  contactList: { read: ['owner'], act: ['owner'], manage: [] },
};

export type Owner = { id: string; managedBy: string | null };

export function relationOf(actor: Actor, owner: Owner): Relation | null {
  if (actor.id === owner.id) return 'owner';
  if (actor.role === 'ADMIN' && !actor.ownOnly && owner.managedBy === actor.id) return 'managingAdmin';
  return null;
}

/** The permission table as a question: may `actor` do `action` to a `resource` owned by `owner`? */
export function can(actor: Actor, action: Action, resource: Resource, owner: Owner): boolean {
  const relation = relationOf(actor, owner);
  return relation !== null && PERMISSIONS[resource][action].includes(relation);
}

export const ACCESS_MESSAGES = {
  userNotFound: 'User not found',
  sessionNotFound: 'Session not found',
  jobNotFound: 'Job not found',
  webhookNotFound: 'Webhook not found',
  apiKeyNotFound: 'API key not found',
  contactListNotFound: 'Contact list not found',
  notAGroup: (id: string) => `Not a group of this account: ${id}`,
} as const;

async function ownerOf(db: Db, userId: string): Promise<Owner | undefined> {
  const [row] = await db
    .select({ id: users.id, managedBy: users.managedBy })
    .from(users)
    .where(eq(users.id, userId));
  return row;
}

/** The owner of a row; the actor's own rows need no query. */
async function ownerOfRow(db: Db, actor: Actor, userId: string): Promise<Owner | undefined> {
  return userId === actor.id ? { id: actor.id, managedBy: null } : ownerOf(db, userId);
}

/** The user `actor` may `action` (for a ledger: `resource` = 'ledger'), or 404 'User not found'. */
export async function authorizeUser(
  db: Db,
  actor: Actor,
  action: Action,
  userId: string,
  resource: 'user' | 'ledger' = 'user',
): Promise<typeof users.$inferSelect> {
  const [row] = await db.select().from(users).where(eq(users.id, userId));
  if (!row || !can(actor, action, resource, row)) throw notFound(ACCESS_MESSAGES.userNotFound);
  return row;
}

/** The account `actor` may `action`, or 404 (`missing` is the text: send routes use the spec's own). */
export async function authorizeAccount(
  db: Db,
  actor: Actor,
  action: Action,
  accountId: string,
  missing: string = ACCESS_MESSAGES.sessionNotFound,
): Promise<typeof accounts.$inferSelect> {
  const [row] = await db.select().from(accounts).where(eq(accounts.accountId, accountId));
  if (!row) throw notFound(missing);
  const owner = await ownerOfRow(db, actor, row.userId);
  if (!owner || !can(actor, action, 'session', owner)) throw notFound(missing);
  return row;
}

/**
 * Groups are reached through their account: `actor` may `action` the account, and every id is
 * a group in that account's list (anything else, a phone number above all, is refused with 400).
 */
export async function authorizeGroups(
  db: Db,
  actor: Actor,
  action: Action,
  accountId: string,
  groupIds: string[],
  missing: string = ACCESS_MESSAGES.sessionNotFound,
): Promise<void> {
  const account = await authorizeAccount(db, actor, action, accountId, missing);
  const owner = await ownerOfRow(db, actor, account.userId);
  if (!owner || !can(actor, action, 'group', owner)) throw notFound(missing);
  const wanted = [...new Set(groupIds)];
  if (wanted.length === 0) return;
  const known = new Set<string>();
  // Channels the account administers may go beside its groups.
  const channels = wanted.filter(isChannelJid);
  if (channels.length > 0) {
    const rows = await db
      .select({ channelId: waChannels.channelId })
      .from(waChannels)
      .where(
        and(eq(waChannels.accountId, accountId), inArray(waChannels.channelId, channels.slice(0, 5000))),
      );
    for (const r of rows) known.add(r.channelId);
  }
  // In slices: a bulk send may name thousands of groups, and a query has a parameter limit.
  for (let i = 0; i < wanted.length; i += 5000) {
    const slice = wanted.slice(i, i + 5000);
    const rows = await db
      .select({ groupId: waGroups.groupId })
      .from(waGroups)
      .where(and(eq(waGroups.accountId, accountId), inArray(waGroups.groupId, slice)));
    for (const r of rows) known.add(r.groupId);
  }
  const stranger = wanted.find((id) => !(isGroupJid(id) || isChannelJid(id)) || !known.has(id));
  if (stranger !== undefined)
    throw badRequest(
      isChannelJid(stranger) ? CHANNEL_TEXTS.notAChannel(stranger) : ACCESS_MESSAGES.notAGroup(stranger),
    );
}

/** The job `actor` may `action`, or 404 'Job not found'. */
export async function authorizeJob(
  db: Db,
  actor: Actor,
  action: Action,
  jobId: string,
): Promise<typeof messageJobs.$inferSelect> {
  const [row] = await db.select().from(messageJobs).where(eq(messageJobs.id, jobId));
  if (!row) throw notFound(ACCESS_MESSAGES.jobNotFound);
  const owner = await ownerOfRow(db, actor, row.userId);
  if (!owner || !can(actor, action, 'job', owner)) throw notFound(ACCESS_MESSAGES.jobNotFound);
  return row;
}

/**
 * A stored file is shared by every job that sends the same bytes: `actor` may `action` it when
 * one of those jobs is theirs to `action`.
 */
export async function mayUseMedia(db: Db, actor: Actor, action: Action, mediaId: string): Promise<boolean> {
  const rows = await db
    .select({ id: users.id, managedBy: users.managedBy })
    .from(messageJobs)
    .innerJoin(users, eq(users.id, messageJobs.userId))
    .where(eq(messageJobs.mediaId, mediaId));
  return rows.some((owner) => can(actor, action, 'media', owner));
}

/** The webhook `actor` may `action`, or 404 'Webhook not found'. */
export async function authorizeWebhook(
  db: Db,
  actor: Actor,
  action: Action,
  webhookId: string,
): Promise<typeof webhooks.$inferSelect> {
  const [row] = await db.select().from(webhooks).where(eq(webhooks.id, webhookId));
  const owner = row && (await ownerOfRow(db, actor, row.userId));
  if (!row || !owner || !can(actor, action, 'webhook', owner))
    throw notFound(ACCESS_MESSAGES.webhookNotFound);
  return row;
}

/** The API key `actor` may `action`, or 404 'API key not found'. */
export async function authorizeApiKey(
  db: Db,
  actor: Actor,
  action: Action,
  keyId: string,
): Promise<typeof apiKeys.$inferSelect> {
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
  const owner = row && (await ownerOfRow(db, actor, row.userId));
  if (!row || !owner || !can(actor, action, 'apiKey', owner)) throw notFound(ACCESS_MESSAGES.apiKeyNotFound);
  return row;
}

/** The contact list `actor` may `action`, or 404 'Contact list not found'. */
export async function authorizeContactList(
  db: Db,
  actor: Actor,
  action: Action,
  listId: string,
): Promise<typeof contactLists.$inferSelect> {
  const [row] = await db.select().from(contactLists).where(eq(contactLists.id, listId));
  const owner = row && (await ownerOfRow(db, actor, row.userId));
  if (!row || !owner || !can(actor, action, 'contactList', owner))
    throw notFound(ACCESS_MESSAGES.contactListNotFound);
  return row;
}
