import { EventEmitter } from 'node:events';
import type { AppContext } from '../context.ts';
import type { StoredParticipant } from '../db/schema.ts';
import {
  type GroupCacheEntry,
  listGroups,
  setInviteCode,
  setLastMessage,
  updateGroup,
  upsertGroups,
} from '../groups/repository.ts';
import { onSignal } from '../signals.ts';
import { createTransport } from '../transport/factory.ts';
import { isSimulatorTransport } from '../transport/simulator/transport.ts';
import type {
  ConnectionUpdate,
  GroupInfo,
  GroupParticipantInfo,
  Transport,
  TransportSession,
} from '../transport/types.ts';
import {
  claimFreeSessions,
  clearCommand,
  findSession,
  msUntilNextForeignExpiry,
  ownedSessionRows,
  releaseLease,
  renewLeases,
  type SessionRow,
  updateOwnedSession,
} from './repository.ts';
import type { SessionRuntime, SessionRuntimeEvents } from './runtime.ts';

export type TransportBuilder = (ctx: AppContext, session: TransportSession) => Promise<Transport>;

type Driver = {
  sessionId: string;
  transport: Transport;
  connected: boolean;
  everOpen: boolean;
  ownJid: string | null;
  ownLid: string | null;
  /** A QR cycle is running: its first QR resets the served time, renewals keep it. */
  inQrCycle: boolean;
  /** The served time already handed to the simulator. */
  qrServedSeen: number | null;
  hasCredentials: boolean;
  syncing: boolean;
  /** Set once the driver is stopped: late events of its transport are ignored. */
  stopped: boolean;
  /** Events of one session are written in order. */
  chain: Promise<void>;
};

const runners = new WeakMap<AppContext, SessionRunner>();

/** The runner of this process for a context, when this node runs one (not with ROLE=api). */
export const localRunner = (ctx: AppContext): SessionRunner | undefined => runners.get(ctx);

/** `user@server` without the device part, for comparing JIDs. */
export function bareJid(jid: string | null | undefined): string | null {
  if (!jid) return null;
  const [user, server] = jid.split('@');
  if (!user || !server) return null;
  return `${user.split(':')[0]}@${server}`;
}

const toStoredParticipant = (p: GroupParticipantInfo): StoredParticipant => ({
  id: p.id,
  phoneNumber: p.phoneNumber,
  lid: p.lid,
  admin: p.admin,
});

/**
 * Drives the sessions this node holds a lease on: one transport each, the lease renewed on a
 * heartbeat, the state written to the database for every node's API. It reacts at once to
 * `session-changed` (and to NOTIFY from other nodes on PostgreSQL) and polls as a fallback.
 */
export class SessionRunner extends EventEmitter<SessionRuntimeEvents> implements SessionRuntime {
  private readonly drivers = new Map<string, Driver>();
  private readonly heartbeatMs: number;
  private heartbeat: NodeJS.Timeout | null = null;
  private wake: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private again = false;
  private stopping = false;
  private unlisten: (() => Promise<void>) | null = null;
  private readonly onChanged = () => this.poke();
  /** When the leases were last renewed; without the database for a lease's length, another node may own them. */
  private lastRenewal = Date.now();

  constructor(
    private readonly ctx: AppContext,
    private readonly buildTransport: TransportBuilder = createTransport,
  ) {
    super();
    this.heartbeatMs = Math.max(200, Math.floor(ctx.config.sessionLeaseMs / 3));
  }

  async start(): Promise<void> {
    runners.set(this.ctx, this);
    this.unlisten = await onSignal(this.ctx, 'session-changed', this.onChanged);
    this.heartbeat = setInterval(() => this.poke(), this.heartbeatMs);
    // Restores the sessions that should run and have no live owner.
    this.poke();
    await this.ticking;
  }

  transportFor(sessionId: string): Transport | undefined {
    const d = this.drivers.get(sessionId);
    return d?.connected ? d.transport : undefined;
  }

  ownedSessionIds(): string[] {
    return [...this.drivers.keys()];
  }

  /** Runs a pass now (or right after the current one). Resolves when the pass is done. */
  poke(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = (async () => {
      do {
        this.again = false;
        try {
          await this.pass();
        } catch (err) {
          if (!this.stopping) this.ctx.log.error({ err }, 'session runner pass failed');
          await this.dropIfLeasesLapsed();
        }
      } while (this.again && !this.stopping);
      this.ticking = null;
    })();
    return this.ticking;
  }

  /** Logs a session out and forgets it; the caller removes its row. */
  async terminate(sessionId: string): Promise<void> {
    const d = this.drivers.get(sessionId);
    if (!d) return;
    await this.logoutDriver(d);
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.wake) clearTimeout(this.wake);
    await this.unlisten?.().catch(() => {});
    await this.ticking;
    await Promise.all(
      [...this.drivers.values()].map((d) =>
        this.stopDriver(d, {
          release: true,
          patch: d.connected ? { status: 'DISCONNECTED', statusReason: 'Server stopped' } : {},
        }),
      ),
    );
    runners.delete(this.ctx);
  }

  private async pass(): Promise<void> {
    const { db, nodeId, config } = this.ctx;
    const ttl = config.sessionLeaseMs;

    const renewing = Date.now();
    const held = new Set(await renewLeases(db, nodeId, [...this.drivers.keys()], ttl));
    this.lastRenewal = renewing;
    for (const d of [...this.drivers.values()]) {
      if (held.has(d.sessionId)) continue;
      const row = await findSession(db, d.sessionId);
      // Row gone: terminated through another node, so the device is unlinked here.
      if (!row) await this.logoutDriver(d);
      else {
        this.ctx.log.warn({ sessionId: d.sessionId }, 'lease lost to another node; closing the connection');
        await this.stopDriver(d, { release: false });
      }
    }

    for (const row of await ownedSessionRows(db, nodeId)) {
      if (this.stopping) return;
      const d = this.drivers.get(row.sessionId);
      if (!d) {
        await releaseLease(db, nodeId, row.sessionId);
        continue;
      }
      if (row.desiredState === 'stopped') {
        await this.stopDriver(d, { release: true });
        continue;
      }
      await this.applyOrders(d, row);
    }

    if (this.stopping) return;
    for (const row of await claimFreeSessions(db, nodeId, ttl)) {
      if (this.stopping) {
        await releaseLease(db, nodeId, row.sessionId);
        continue;
      }
      await this.startDriver(row);
    }

    // Wake up just after the next lease of another node runs out, to take it over without delay.
    const ms = await msUntilNextForeignExpiry(db, nodeId);
    if (this.wake) clearTimeout(this.wake);
    this.wake = null;
    if (ms !== null && ms < this.heartbeatMs && !this.stopping) {
      this.wake = setTimeout(() => this.poke(), Math.max(20, ms + 20));
    }
  }

  /**
   * The database was unreachable for longer than a lease: another node may have taken the
   * sessions, so this node closes its connections rather than drive them twice.
   */
  private async dropIfLeasesLapsed(): Promise<void> {
    if (this.stopping || Date.now() - this.lastRenewal < this.ctx.config.sessionLeaseMs * 0.9) return;
    if (this.drivers.size === 0) return;
    this.ctx.log.error('leases could not be renewed in time; closing every connection of this node');
    for (const d of [...this.drivers.values()]) await this.stopDriver(d, { release: false });
  }

  private async startDriver(row: SessionRow): Promise<void> {
    const { db, nodeId } = this.ctx;
    await updateOwnedSession(db, nodeId, row.sessionId, {
      status: 'PENDING',
      statusReason: row.sendPaused ? row.statusReason : null,
      qr: null,
      qrUpdatedAt: null,
      qrServedAt: null,
      // A fresh start is what a restart order asks for.
      ...(row.command === 'restart' ? { command: null, commandAt: null } : {}),
    });
    let transport: Transport;
    try {
      transport = await this.buildTransport(this.ctx, {
        sessionId: row.sessionId,
        phoneNumber: row.phoneNumber,
      });
    } catch (err) {
      this.ctx.log.error({ err, sessionId: row.sessionId }, 'could not create the transport');
      await releaseLease(db, nodeId, row.sessionId, {
        status: 'DISCONNECTED',
        statusReason: `Cannot start the connection: ${errorText(err)}`,
        desiredState: 'stopped',
      });
      return;
    }
    const d: Driver = {
      sessionId: row.sessionId,
      transport,
      connected: false,
      everOpen: false,
      ownJid: row.ownJid,
      ownLid: row.ownLid,
      inQrCycle: false,
      qrServedSeen: null,
      hasCredentials: row.hasCredentials,
      syncing: false,
      stopped: false,
      chain: Promise.resolve(),
    };
    this.drivers.set(row.sessionId, d);
    const run = (what: string, fn: () => Promise<void>) => {
      d.chain = d.chain.then(async () => {
        if (d.stopped) return;
        try {
          await fn();
        } catch (err) {
          if (!d.stopped)
            this.ctx.log.error({ err, sessionId: d.sessionId }, `session event failed: ${what}`);
        }
      });
    };
    transport.on('connection', (u) => run('connection', () => this.onConnection(d, u)));
    transport.on('groups-upsert', (groups) =>
      run('groups-upsert', () =>
        upsertGroups(db, d.sessionId, this.toCache(d, groups), { replaceAll: false }),
      ),
    );
    transport.on('groups-update', (updates) =>
      run('groups-update', async () => {
        for (const u of updates) {
          await updateGroup(db, d.sessionId, u.id, {
            ...(u.subject !== undefined ? { subject: u.subject } : {}),
            ...(u.announce !== undefined ? { announce: u.announce } : {}),
            ...(u.participants
              ? {
                  participants: u.participants.map(toStoredParticipant),
                  isAdmin: this.isAdminIn(d, u.participants),
                }
              : {}),
          });
        }
      }),
    );
    transport.on('last-message', (m) =>
      run('last-message', () =>
        setLastMessage(db, d.sessionId, m.chatId, { sender: m.sender, timestamp: m.timestamp, body: m.body }),
      ),
    );
    transport.on('quota', (q) =>
      run('quota', async () => {
        // Never lifted automatically: a person looks first (DECISIONS.md, sending pace).
        if (q.capped)
          await updateOwnedSession(db, nodeId, d.sessionId, {
            sendPaused: true,
            statusReason: q.reason ?? "Paused: WhatsApp's new-chat limit was reached",
          });
      }),
    );
    transport.on('creds-saved', () =>
      run('creds-saved', async () => {
        if (d.hasCredentials) return;
        d.hasCredentials = true;
        await updateOwnedSession(db, nodeId, d.sessionId, { hasCredentials: true });
      }),
    );
    transport.connect().catch((err) => {
      run('connect', () =>
        this.onConnection(d, {
          state: 'closed',
          reason: `Cannot connect: ${errorText(err)}`,
          loggedOut: false,
          fatal: false,
          willReconnect: false,
        }),
      );
    });
  }

  private async onConnection(d: Driver, u: ConnectionUpdate): Promise<void> {
    const { db, nodeId } = this.ctx;
    const row = await findSession(db, d.sessionId);
    if (!row) return;
    const keepReason = row.sendPaused ? row.statusReason : null;
    switch (u.state) {
      case 'connecting':
        return;
      case 'qr': {
        const first = !d.inQrCycle;
        d.inQrCycle = true;
        if (first) d.qrServedSeen = null;
        await updateOwnedSession(db, nodeId, d.sessionId, {
          status: 'PENDING',
          statusReason: keepReason,
          qr: u.qr,
          qrUpdatedAt: new Date(),
          ...(first ? { qrServedAt: null } : {}),
        });
        // An order (the simulator's link) may be waiting for the QR.
        if (row.command) this.poke();
        return;
      }
      case 'open': {
        d.inQrCycle = false;
        d.connected = true;
        d.everOpen = true;
        d.ownJid = u.jid;
        d.ownLid = u.lid;
        d.hasCredentials = true;
        await updateOwnedSession(db, nodeId, d.sessionId, {
          status: 'CONNECTED',
          statusReason: keepReason,
          ownJid: u.jid,
          ownLid: u.lid,
          qr: null,
          qrUpdatedAt: null,
          qrServedAt: null,
          hasCredentials: true,
          connectedAt: new Date(),
        });
        this.emit('connected', d.sessionId);
        void this.syncGroups(d);
        return;
      }
      case 'closed': {
        // The operator reads why a session is down (e.g. WhatsApp unreachable) in the log too.
        this.ctx.log.warn(
          {
            sessionId: d.sessionId,
            reason: u.reason,
            loggedOut: u.loggedOut,
            willReconnect: u.willReconnect,
          },
          `WhatsApp connection closed: ${u.reason}`,
        );
        const wasConnected = d.connected;
        d.connected = false;
        d.inQrCycle = false;
        if (wasConnected) this.emit('disconnected', d.sessionId);
        if (u.loggedOut) {
          d.hasCredentials = false;
          await this.stopDriver(d, {
            release: true,
            patch: {
              status: 'DISCONNECTED',
              statusReason: u.reason,
              hasCredentials: false,
              qr: null,
              qrUpdatedAt: null,
              qrServedAt: null,
              desiredState: 'stopped',
            },
          });
        } else if (u.willReconnect) {
          await updateOwnedSession(db, nodeId, d.sessionId, {
            status: d.everOpen ? 'DISCONNECTED' : 'PENDING',
            statusReason: u.reason,
            qr: null,
            qrUpdatedAt: null,
          });
        } else {
          // Banned, replaced, QR expired or unreachable for good: nobody reconnects it until a restart.
          await this.stopDriver(d, {
            release: true,
            patch: {
              status: 'DISCONNECTED',
              statusReason: u.reason,
              qr: null,
              qrUpdatedAt: null,
              qrServedAt: null,
              desiredState: 'stopped',
            },
          });
        }
        return;
      }
    }
  }

  /** Carries out what the API asked for through the row: orders, the served QR, a group refresh. */
  private async applyOrders(d: Driver, row: SessionRow): Promise<void> {
    const { db } = this.ctx;
    const t = d.transport;
    if (row.command && row.commandAt) {
      let done = true;
      switch (row.command) {
        case 'restart':
          if (!d.connected) {
            await this.stopDriver(d, { release: false });
            await clearCommand(db, row.sessionId, row.commandAt);
            await this.startDriver({ ...row, command: null, commandAt: null });
            return;
          }
          break;
        case 'link':
          if (isSimulatorTransport(t) && t.state === 'qr') await t.linkNow();
          else done = !isSimulatorTransport(t) || t.state === 'open' || t.state === 'closed';
          break;
        case 'disconnect':
          if (isSimulatorTransport(t)) t.dropConnection();
          break;
        case 'logout':
          if (isSimulatorTransport(t)) await t.unlinkFromPhone();
          break;
      }
      if (done) await clearCommand(db, row.sessionId, row.commandAt);
    }
    if (d.stopped) return;
    if (isSimulatorTransport(t) && row.qrServedAt && d.qrServedSeen !== row.qrServedAt.getTime()) {
      d.qrServedSeen = row.qrServedAt.getTime();
      t.qrServed(row.qrServedAt);
    }
    const requested = row.groupsRefreshRequestedAt?.getTime() ?? 0;
    if (d.connected && requested > (row.groupsFetchedAt?.getTime() ?? 0)) void this.syncGroups(d);
  }

  /** One full group fetch into the cache, then the invite codes of admin groups, one at a time. */
  private async syncGroups(d: Driver): Promise<void> {
    if (d.syncing || d.stopped) return;
    d.syncing = true;
    const { db, nodeId } = this.ctx;
    try {
      const groups = await d.transport.fetchGroups();
      if (d.stopped) return;
      await upsertGroups(db, d.sessionId, this.toCache(d, groups), { replaceAll: true });
      await updateOwnedSession(db, nodeId, d.sessionId, { groupsFetchedAt: new Date() });
      for (const g of await listGroups(db, d.sessionId)) {
        if (d.stopped || !d.connected) return;
        if (!g.isAdmin || g.inviteCode) continue;
        try {
          await setInviteCode(db, d.sessionId, g.groupId, await d.transport.inviteCode(g.groupId));
        } catch (err) {
          this.ctx.log.warn({ err, sessionId: d.sessionId, groupId: g.groupId }, 'invite code not available');
        }
      }
    } catch (err) {
      if (!d.stopped) this.ctx.log.warn({ err, sessionId: d.sessionId }, 'group fetch failed');
    } finally {
      d.syncing = false;
    }
  }

  private toCache(d: Driver, groups: GroupInfo[]): GroupCacheEntry[] {
    return groups.map((g) => ({
      groupId: g.id,
      subject: g.subject,
      owner: g.owner,
      createdAt: g.creation ? new Date(g.creation * 1000) : null,
      participants: g.participants.map(toStoredParticipant),
      isAdmin: this.isAdminIn(d, g.participants),
      announce: g.announce,
      lastMessage: g.lastMessage
        ? { sender: g.lastMessage.sender, timestamp: g.lastMessage.timestamp, body: g.lastMessage.body }
        : null,
    }));
  }

  /** Whether the linked account is admin among these participants, matched by phone JID or LID. */
  private isAdminIn(d: Driver, participants: GroupParticipantInfo[]): boolean {
    const own = new Set([bareJid(d.ownJid), bareJid(d.ownLid)].filter((x): x is string => !!x));
    const ownPhone = bareJid(d.ownJid)?.split('@')[0] ?? null;
    return participants.some(
      (p) =>
        p.admin !== null &&
        (own.has(bareJid(p.id) ?? '') ||
          own.has(bareJid(p.lid) ?? '') ||
          (ownPhone !== null && p.phoneNumber === ownPhone)),
    );
  }

  private async stopDriver(
    d: Driver,
    options: { release: boolean; patch?: Parameters<typeof releaseLease>[3] },
  ): Promise<void> {
    if (d.stopped) return;
    d.stopped = true;
    if (this.drivers.get(d.sessionId) === d) this.drivers.delete(d.sessionId);
    if (d.connected) {
      d.connected = false;
      this.emit('disconnected', d.sessionId);
    }
    await d.transport
      .close()
      .catch((err) => this.ctx.log.warn({ err, sessionId: d.sessionId }, 'close failed'));
    d.transport.removeAllListeners();
    if (options.release) {
      await releaseLease(this.ctx.db, this.ctx.nodeId, d.sessionId, options.patch ?? {}).catch((err) =>
        this.ctx.log.warn({ err, sessionId: d.sessionId }, 'could not release the lease'),
      );
    }
  }

  private async logoutDriver(d: Driver): Promise<void> {
    if (d.stopped) return;
    d.stopped = true;
    if (this.drivers.get(d.sessionId) === d) this.drivers.delete(d.sessionId);
    if (d.connected) {
      d.connected = false;
      this.emit('disconnected', d.sessionId);
    }
    await d.transport
      .logout()
      .catch((err) => this.ctx.log.warn({ err, sessionId: d.sessionId }, 'logout did not reach WhatsApp'));
    await d.transport.close().catch(() => {});
    d.transport.removeAllListeners();
  }
}

export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** Starts this node's runner: restores the sessions that should run, then keeps leases and reacts to changes. */
export async function startSessionRunner(
  ctx: AppContext,
  buildTransport?: TransportBuilder,
): Promise<SessionRunner> {
  const runner = new SessionRunner(ctx, buildTransport);
  await runner.start();
  return runner;
}
