import { CHANNEL_TEXTS, GROUP_CREATE_TEXTS } from '@wa/contract';
import { and, eq, lte } from 'drizzle-orm';
import {
  type ChannelOrderRow,
  deleteChannel,
  findChannelOrder,
  finishChannelOrder,
  insertChannelOrder,
  listChannels,
  pendingChannelOrders,
  takeChannelOrder,
  upsertChannel,
  withdrawChannelOrder,
} from '../channels/repository.ts';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/client.ts';
import { accounts } from '../db/schema.ts';
import { badRequest, conflict, unavailable } from '../errors.ts';
import { setInviteCode, upsertGroups } from '../groups/repository.ts';
import { newId } from '../ids.ts';
import { signal } from '../signals.ts';
import type { ChannelInfo, Transport } from '../transport/types.ts';
import { type OwnIds, toCache } from './group-sync.ts';
import type { AccountRow } from './repository.ts';
import { effectiveStatus } from './service.ts';

export type ChannelOrder =
  | { kind: 'create'; name: string; description: string | null }
  | { kind: 'add'; invite: string }
  | { kind: 'refresh' }
  /** A new group with its first members (phone-number JIDs): group-create.ts. */
  | { kind: 'group'; name: string; members: string[] };

/** How long the API waits for the driving node to carry an order out. */
export const CHANNEL_ORDER_WAIT_MS = 20_000;
/** Between two channels re-read on a refresh (one w:mex query each). */
const REFRESH_SPACING_MS = 200;

/**
 * Asks the node that drives the account to do `order` through WhatsApp (any node may answer the
 * API: the order travels through the database as the group refresh does) and waits for the outcome.
 * An order not taken within the wait is withdrawn, so it is never carried out behind the user's back.
 */
export async function orderChannels(
  ctx: AppContext,
  account: AccountRow,
  order: ChannelOrder,
  waitMs = CHANNEL_ORDER_WAIT_MS,
): Promise<ChannelOrderRow> {
  if (effectiveStatus(account) !== 'CONNECTED') throw conflict(CHANNEL_TEXTS.notConnected);
  const id = newId();
  await insertChannelOrder(ctx.db, {
    id,
    accountId: account.accountId,
    kind: order.kind,
    name: order.kind === 'create' || order.kind === 'group' ? order.name : null,
    members: order.kind === 'group' ? order.members : null,
    description: order.kind === 'create' ? order.description : null,
    invite: order.kind === 'add' ? order.invite : null,
  });
  await ctx.db
    .update(accounts)
    .set({ channelOrderAt: new Date() })
    .where(eq(accounts.accountId, account.accountId));
  await signal(ctx, 'session-changed', account.accountId);
  const until = Date.now() + waitMs;
  for (;;) {
    const row = await findChannelOrder(ctx.db, id);
    if (row?.doneAt) {
      if (row.error) throw badRequest(row.error);
      return row;
    }
    if (Date.now() > until && (await withdrawChannelOrder(ctx.db, id)))
      throw unavailable(CHANNEL_TEXTS.timeout);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** What the channel orders read of the account driver they work for. */
export interface ChannelAccount extends OwnIds {
  readonly accountId: string;
  readonly transport: Transport;
  readonly stopped: boolean;
  readonly connected: boolean;
}

type AdminOf = ChannelInfo & { role: 'OWNER' | 'ADMIN' };
const mayPost = (c: ChannelInfo): c is AdminOf => c.role === 'OWNER' || c.role === 'ADMIN';
const entryOf = (c: AdminOf) => ({
  channelId: c.id,
  name: c.name,
  description: c.description,
  followers: c.followers,
  role: c.role,
  invite: c.invite,
});

/** One account's channel orders, carried out by the node that drives it, one at a time. */
export class ChannelOrders {
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly account: ChannelAccount,
  ) {}

  /** Runs the waiting orders (the row says some were given at `orderedAt`). */
  run(orderedAt: Date): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.pass(orderedAt).catch((err) =>
          this.ctx.log.warn({ err, accountId: this.account.accountId }, 'channel orders failed'),
        );
      } while (this.again && !this.account.stopped);
      this.running = null;
    })();
  }

  private async pass(orderedAt: Date): Promise<void> {
    const { db } = this.ctx;
    const s = this.account;
    for (const order of await pendingChannelOrders(db, s.accountId)) {
      if (s.stopped || !s.connected) return;
      if (!(await takeChannelOrder(db, order.id))) continue;
      let outcome: { error: string | null; channelId: string | null };
      try {
        outcome = { error: null, channelId: await this.carryOut(order) };
      } catch (err) {
        outcome = { error: (err as Error).message || String(err), channelId: null };
      }
      await finishChannelOrder(db, order.id, outcome);
    }
    // The mark is cleared unless a newer order came meanwhile.
    await db
      .update(accounts)
      .set({ channelOrderAt: null })
      .where(and(eq(accounts.accountId, s.accountId), lte(accounts.channelOrderAt, orderedAt)));
  }

  /** Does the order through WhatsApp and keeps what it learned; the channel's (or group's) id, or null for a refresh. */
  private async carryOut(order: ChannelOrderRow): Promise<string | null> {
    const { db } = this.ctx;
    const { accountId, transport } = this.account;
    if (order.kind === 'group') return makeGroup(db, this.account, order.name ?? '', order.members ?? []);
    const channels = transport.channels;
    if (!channels) throw new Error(CHANNEL_TEXTS.linkedOnly);
    switch (order.kind) {
      case 'create': {
        const created = await channels.create(order.name ?? '', order.description);
        await upsertChannel(db, accountId, entryOf({ ...created, role: 'OWNER' }));
        return created.id;
      }
      case 'add': {
        const found = await channels.byInvite(order.invite ?? '');
        if (!found) throw new Error(CHANNEL_TEXTS.notFound);
        if (!mayPost(found)) throw new Error(CHANNEL_TEXTS.notAdmin);
        await upsertChannel(db, accountId, entryOf(found));
        return found.id;
      }
      case 'refresh': {
        // A channel the account no longer administers (or that is gone) leaves the list.
        for (const [i, known] of (await listChannels(db, accountId)).entries()) {
          if (this.account.stopped) return null;
          if (i > 0) await new Promise((r) => setTimeout(r, REFRESH_SPACING_MS));
          const now = await channels.byId(known.channelId);
          if (now && mayPost(now)) await upsertChannel(db, accountId, entryOf(now));
          else await deleteChannel(db, accountId, known.channelId);
        }
        return null;
      }
    }
  }
}

/**
 * On the node that drives the account: makes the group through WhatsApp, keeps it in the
 * group cache at once (Group List and Send Group Message show it), with its invite link.
 */
export async function makeGroup(
  db: Db,
  account: OwnIds & { accountId: string; transport: Transport },
  subject: string,
  members: string[],
): Promise<string> {
  const { transport } = account;
  if (!transport.createGroup) throw new Error(GROUP_CREATE_TEXTS.linkedOnly);
  const group = await transport.createGroup(subject, members);
  await upsertGroups(db, account.accountId, toCache(account, [group]), { replaceAll: false });
  if (transport.inviteCode)
    await setInviteCode(db, account.accountId, group.id, await transport.inviteCode(group.id));
  return group.id;
}
