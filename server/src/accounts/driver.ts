import type { AppContext } from '../context.ts';
import { setLastMessage, upsertGroups } from '../groups/repository.ts';
import { onSocketOutcome } from '../transport/socket-outcomes.ts';
import type { ConnectionUpdate, Transport } from '../transport/types.ts';
import { ChannelOrders } from './channel-orders.ts';
import { GroupSync, type SyncedAccount, toCache, updateGroups } from './group-sync.ts';
import { recordAccountEvent } from './health/repository.ts';
import {
  type AccountRow,
  clearCommand,
  deleteAccount,
  findAccount,
  markLinked,
  releaseLease,
  takeSimulatorInbox,
  updateOwnedAccount,
} from './repository.ts';
import type { AccountRuntimeEvents } from './runtime.ts';
import { takeQuota } from './send-pause.ts';

/** What an account driver needs from the lease loop that owns it. */
export interface DriverHost {
  readonly ctx: AppContext;
  /** Re-emits a domain event of the account on the runtime (the only door above accounts/). */
  publish<K extends keyof AccountRuntimeEvents>(event: K, ...args: AccountRuntimeEvents[K]): void;
  /** Runs a pass of the lease loop soon (an order may be waiting). */
  poke(): void;
  /** The driver is stopping: the loop forgets it, and leaves its row alone until `settled`. */
  forget(driver: AccountDriver): void;
  /** The driver has stopped: its transport closed and, if it released the lease, the row written. */
  settled(driver: AccountDriver): void;
  /** A restart order: a new driver for the row. */
  restart(row: AccountRow): Promise<void>;
}

type ReleasePatch = Parameters<typeof releaseLease>[3];

/** The row without a pairing code (the attempt it belonged to is over). */
export const NO_PAIRING = { pairingCode: null, pairingCodeAt: null, pairingCodeExpiresAt: null } as const;

export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * One account this node holds the lease of: its transport's events written to the database in
 * order, the orders of the API carried out, the group cache kept.
 */
export class AccountDriver implements SyncedAccount {
  readonly accountId: string;
  private readonly userId: string;
  connected = false;
  private everOpen = false;
  ownJid: string | null;
  ownLid: string | null;
  /** A QR cycle is running: its first QR resets the served time, renewals keep it. */
  private inQrCycle = false;
  /** The served time already handed to the simulator. */
  private qrServedSeen: number | null = null;
  private hasCredentials: boolean;
  /** Set once the driver is stopped: late events of its transport are ignored. */
  stopped = false;
  /** Events of one account are written in order. */
  private chain: Promise<void> = Promise.resolve();
  private readonly groups: GroupSync;
  private readonly channels: ChannelOrders;
  private readonly ctx: AppContext;

  constructor(
    private readonly host: DriverHost,
    row: AccountRow,
    readonly transport: Transport,
  ) {
    this.ctx = host.ctx;
    this.accountId = row.accountId;
    this.userId = row.userId;
    this.ownJid = row.ownJid;
    this.ownLid = row.ownLid;
    this.hasCredentials = row.hasCredentials;
    this.groups = new GroupSync(this.ctx, this);
    this.channels = new ChannelOrders(this.ctx, this);
  }

  /** Listens to the transport and connects it. */
  start(): void {
    const { db, nodeId } = this.ctx;
    const transport = this.transport;
    transport.on('connection', (u) => this.run('connection', () => this.onConnection(u)));
    transport.on('groups-upsert', (groups) =>
      this.run('groups-upsert', () =>
        upsertGroups(db, this.accountId, toCache(this, groups), { replaceAll: false }),
      ),
    );
    transport.on('groups-update', (updates) =>
      this.run('groups-update', () => updateGroups(db, this, updates)),
    );
    transport.on('last-message', (m) =>
      this.run('last-message', () =>
        setLastMessage(db, this.accountId, m.chatId, {
          sender: m.sender,
          timestamp: m.timestamp,
          body: m.body,
        }),
      ),
    );
    transport.on('quota', (q) =>
      this.run('quota', async () => {
        if (await takeQuota(db, this.accountId, q, nodeId))
          this.host.publish('restricted', this.accountId, q);
      }),
    );
    // Receipts, later refusals and replies go up at once (not behind the account's writes): the
    // engine batches them.
    onSocketOutcome(transport, (o) => this.host.publish('outcome', this.accountId, this.userId, o));
    transport.on('undelivered-cause', (c) => this.host.publish('undelivered-cause', this.accountId, c));
    transport.on('creds-saved', () =>
      this.run('creds-saved', async () => {
        if (this.hasCredentials) return;
        this.hasCredentials = true;
        await updateOwnedAccount(db, nodeId, this.accountId, { hasCredentials: true });
      }),
    );
    transport.connect().catch((err) => {
      this.run('connect', () =>
        this.onConnection({
          state: 'closed',
          reason: `Cannot connect: ${errorText(err)}`,
          loggedOut: false,
          willReconnect: false,
        }),
      );
    });
  }

  private run(what: string, fn: () => Promise<void>): void {
    this.chain = this.chain.then(async () => {
      if (this.stopped) return;
      try {
        await fn();
      } catch (err) {
        if (!this.stopped)
          this.ctx.log.error({ err, accountId: this.accountId }, `session event failed: ${what}`);
      }
    });
  }

  private async onConnection(u: ConnectionUpdate): Promise<void> {
    const { db, nodeId } = this.ctx;
    const row = await findAccount(db, this.accountId);
    if (!row) return;
    const keepReason = row.sendPaused ? row.statusReason : null;
    switch (u.state) {
      case 'connecting':
        return;
      case 'qr': {
        const first = !this.inQrCycle;
        this.inQrCycle = true;
        if (first) this.qrServedSeen = null;
        await updateOwnedAccount(db, nodeId, this.accountId, {
          status: 'PENDING',
          statusReason: keepReason,
          qr: u.qr,
          qrUpdatedAt: new Date(),
          ...(first ? { qrServedAt: null } : {}),
        });
        // An order (the simulator's link) may be waiting for the QR.
        if (row.command) this.host.poke();
        // The user asked to link by phone number: the code comes once this attempt shows a QR
        // (later renewals of the QR answer the same code).
        if (row.pairingRequestedAt && (!row.pairingCodeAt || row.pairingCodeAt < row.pairingRequestedAt))
          await this.pair();
        return;
      }
      case 'open': {
        this.inQrCycle = false;
        this.connected = true;
        this.everOpen = true;
        this.ownJid = u.jid;
        this.ownLid = u.lid;
        this.hasCredentials = true;
        await updateOwnedAccount(db, nodeId, this.accountId, {
          status: 'CONNECTED',
          statusReason: keepReason,
          ownJid: u.jid,
          ownLid: u.lid,
          qr: null,
          qrUpdatedAt: null,
          qrServedAt: null,
          ...NO_PAIRING,
          pairingRequestedAt: null,
          hasCredentials: true,
          connectedAt: new Date(),
        });
        await markLinked(db, this.accountId);
        this.host.publish('connected', this.accountId);
        void this.groups.run();
        return;
      }
      case 'closed': {
        // The operator reads why an account is down (e.g. WhatsApp unreachable) in the log too.
        this.ctx.log.warn(
          {
            accountId: this.accountId,
            reason: u.reason,
            loggedOut: u.loggedOut,
            willReconnect: u.willReconnect,
          },
          `WhatsApp connection closed: ${u.reason}`,
        );
        const wasConnected = this.connected;
        this.connected = false;
        this.inQrCycle = false;
        if (wasConnected) {
          this.host.publish('disconnected', this.accountId);
          await recordAccountEvent(db, this.accountId, 'disconnected', u.reason);
        }
        if (u.loggedOut) {
          this.hasCredentials = false;
          await this.stopForGood(u.reason, { hasCredentials: false, linkedAt: null });
        } else if (u.willReconnect) {
          await updateOwnedAccount(db, nodeId, this.accountId, {
            status: this.everOpen ? 'DISCONNECTED' : 'PENDING',
            statusReason: u.reason,
            qr: null,
            qrUpdatedAt: null,
            // The code belonged to the closed connection; one asked for still comes on the next.
            ...NO_PAIRING,
          });
        } else {
          // Banned, replaced, QR expired or unreachable for good: nobody reconnects it until a restart.
          await this.stopForGood(u.reason);
        }
        return;
      }
    }
  }

  /** The connection is over and nobody reconnects it until a restart (`more`: what else the row forgets). */
  private stopForGood(reason: string, more: ReleasePatch = {}): Promise<void> {
    return this.stop({
      release: true,
      patch: {
        status: 'DISCONNECTED',
        statusReason: reason,
        ...more,
        qr: null,
        qrUpdatedAt: null,
        qrServedAt: null,
        ...NO_PAIRING,
        pairingRequestedAt: null,
        desiredState: 'stopped',
      },
    });
  }

  /** Carries out what the API asked for through the row: orders, the served QR, a group refresh. */
  async applyOrders(row: AccountRow): Promise<void> {
    const { db } = this.ctx;
    const t = this.transport;
    const sim = t.simulated;
    if (row.command && row.commandAt) {
      let done = true;
      switch (row.command) {
        case 'reconnect':
        case 'restart':
          if (!this.connected || row.command === 'reconnect') {
            await this.stop({ release: false });
            await clearCommand(db, row.accountId, row.commandAt);
            await this.host.restart({ ...row, command: null, commandAt: null });
            return;
          }
          break;
        case 'terminate':
          // The row goes with the account's credentials, groups and keys: the order is taken.
          await this.logout();
          await deleteAccount(db, row.accountId);
          return;
        // The simulator's orders; a real network has nobody to take them.
        case 'link':
          if (sim && t.state === 'qr') await sim.linkNow();
          else done = !sim || t.state === 'open' || t.state === 'closed';
          break;
        case 'disconnect':
          sim?.dropConnection();
          break;
        case 'logout':
          await sim?.unlinkFromPhone();
          break;
      }
      if (done) await clearCommand(db, row.accountId, row.commandAt);
    }
    if (this.stopped) return;
    // Texts the simulator's inbound route left for this account, received as the network would deliver them.
    if (sim && this.connected && row.simulatorInbox?.length) {
      for (const m of await takeSimulatorInbox(db, this.ctx.nodeId, this.accountId))
        sim.receiveText(m.from, m.text, m.senderPn, m.media);
    }
    if (
      row.pairingRequestedAt &&
      t.state === 'qr' &&
      (!row.pairingCodeAt || row.pairingCodeAt < row.pairingRequestedAt)
    )
      await this.pair();
    if (sim && row.qrServedAt && this.qrServedSeen !== row.qrServedAt.getTime()) {
      this.qrServedSeen = row.qrServedAt.getTime();
      sim.qrServed(row.qrServedAt);
    }
    if (this.connected && row.channelOrderAt) this.channels.run(row.channelOrderAt);
    const requested = row.groupsRefreshRequestedAt?.getTime() ?? 0;
    if (this.connected && requested > (row.groupsFetchedAt?.getTime() ?? 0)) void this.groups.run(true);
  }

  /**
   * Gets the pairing code of the current linking attempt from the transport (it asks WhatsApp
   * once per connection) and stores it in the row, where every node's API reads it.
   */
  private async pair(): Promise<void> {
    const transport = this.transport;
    if (transport.state !== 'qr' || !transport.requestPairingCode) return;
    try {
      const { code, expiresAt } = await transport.requestPairingCode();
      if (this.stopped) return;
      await updateOwnedAccount(this.ctx.db, this.ctx.nodeId, this.accountId, {
        pairingCode: code,
        pairingCodeAt: new Date(),
        pairingCodeExpiresAt: expiresAt,
      });
    } catch (err) {
      this.ctx.log.warn({ err, accountId: this.accountId }, 'could not get a pairing code');
    }
  }

  /** Closes the connection without unlinking; `release` gives the lease up with `patch` written. */
  async stop(options: { release: boolean; patch?: ReleasePatch }): Promise<void> {
    await this.leave(async () => {
      await this.transport
        .close()
        .catch((err) => this.ctx.log.warn({ err, accountId: this.accountId }, 'close failed'));
      this.transport.removeAllListeners();
      if (options.release) {
        await releaseLease(this.ctx.db, this.ctx.nodeId, this.accountId, options.patch ?? {}).catch((err) =>
          this.ctx.log.warn({ err, accountId: this.accountId }, 'could not release the lease'),
        );
      }
    });
  }

  /** Unlinks the device (the account is being terminated). */
  async logout(): Promise<void> {
    await this.leave(async () => {
      await this.transport
        .logout?.()
        .catch((err) =>
          this.ctx.log.warn({ err, accountId: this.accountId }, 'logout did not reach WhatsApp'),
        );
      await this.transport.close().catch(() => {});
      this.transport.removeAllListeners();
    });
  }

  /** Stops the driver once (`work`: what stopping does), the host leaving its row alone meanwhile. */
  private async leave(work: () => Promise<void>): Promise<void> {
    if (!this.halt()) return;
    try {
      await work();
    } finally {
      this.host.settled(this);
    }
  }

  /** Marks the driver stopped; false when it already was. */
  private halt(): boolean {
    if (this.stopped) return false;
    this.stopped = true;
    this.host.forget(this);
    if (this.connected) {
      this.connected = false;
      this.host.publish('disconnected', this.accountId);
    }
    return true;
  }
}
