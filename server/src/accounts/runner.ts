import { EventEmitter } from 'node:events';
import { DEFAULT_TIMEZONE } from '@wa/contract';
import type { AppContext } from '../context.ts';
import { onSignal } from '../signals.ts';
import { pruneNumberLookups } from '../transport/number-lookups.ts';
import { pruneSentMessages } from '../transport/sent-messages.ts';
import type { Transport, TransportAccount } from '../transport/types.ts';
import { AccountDriver, type DriverHost, errorText, NO_PAIRING } from './driver.ts';
import { accountsToEvaluate, pruneAccountEvents } from './health/repository.ts';
import { evaluateHealth } from './health/service.ts';
import { createTransport } from './providers.ts';
import {
  type AccountRow,
  claimFreeAccounts,
  findAccount,
  msUntilNextForeignExpiry,
  ownedAccountRows,
  releaseLease,
  renewLeases,
  updateOwnedAccount,
} from './repository.ts';
import type { AccountRuntime, AccountRuntimeEvents } from './runtime.ts';

export type TransportBuilder = (ctx: AppContext, account: TransportAccount) => Promise<Transport>;

/** How often this node deletes old sent messages. */
const PRUNE_EVERY_MS = 60 * 60_000;

/**
 * Drives the accounts this node holds a lease on: one transport each, the lease renewed on a
 * heartbeat, the state written to the database for every node's API. It reacts at once to
 * `session-changed` (and to NOTIFY from other nodes on PostgreSQL) and polls as a fallback.
 */
export class AccountRunner extends EventEmitter<AccountRuntimeEvents> implements AccountRuntime, DriverHost {
  private readonly drivers = new Map<string, AccountDriver>();
  /**
   * Accounts whose driver is stopping (closing its transport, then writing the row's last word as
   * it releases the lease): a pass leaves their rows alone meanwhile. Released by the pass instead,
   * a ban's DISCONNECTED and desired state 'stopped' found the lease gone and were not written, and
   * the account was claimed again.
   */
  private readonly leaving = new Map<string, number>();
  private readonly heartbeatMs: number;
  private heartbeat: NodeJS.Timeout | null = null;
  private prune: NodeJS.Timeout | null = null;
  private health: NodeJS.Timeout | null = null;
  private evaluating = false;
  private wake: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private again = false;
  private stopping = false;
  private unlisten: (() => Promise<void>) | null = null;
  private readonly onChanged = () => this.poke();
  /** When the leases were last renewed; without the database for a lease's length, another node may own them. */
  private lastRenewal = Date.now();

  constructor(
    readonly ctx: AppContext,
    private readonly buildTransport: TransportBuilder = createTransport,
  ) {
    super();
    this.heartbeatMs = Math.max(200, Math.floor(ctx.config.accountLeaseMs / 3));
  }

  async start(): Promise<void> {
    this.unlisten = await onSignal(this.ctx, 'session-changed', this.onChanged);
    this.heartbeat = setInterval(() => this.poke(), this.heartbeatMs);
    this.prune = setInterval(() => void this.pruneSent(), PRUNE_EVERY_MS);
    this.health = setInterval(() => void this.evaluateHealth(), this.ctx.config.healthCheckMs);
    void this.pruneSent();
    // Restores the accounts that should run and have no live owner.
    this.poke();
    await this.ticking;
  }

  transportFor(accountId: string): Transport | undefined {
    const d = this.drivers.get(accountId);
    return d?.connected ? d.transport : undefined;
  }

  ownedAccountIds(): string[] {
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

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.prune) clearInterval(this.prune);
    if (this.health) clearInterval(this.health);
    if (this.wake) clearTimeout(this.wake);
    await this.unlisten?.().catch(() => {});
    await this.ticking;
    await Promise.all(
      [...this.drivers.values()].map((d) =>
        d.stop({
          release: true,
          patch: d.connected ? { status: 'DISCONNECTED', statusReason: 'Server stopped' } : {},
        }),
      ),
    );
  }

  private async pass(): Promise<void> {
    const { db, nodeId, config } = this.ctx;
    const ttl = config.accountLeaseMs;

    const renewing = Date.now();
    const held = new Set(await renewLeases(db, nodeId, [...this.drivers.keys()], ttl));
    this.lastRenewal = renewing;
    for (const d of [...this.drivers.values()]) {
      if (held.has(d.accountId)) continue;
      const row = await findAccount(db, d.accountId);
      // Row gone: terminated through another node, so the device is unlinked here.
      if (!row) await d.logout();
      else {
        this.ctx.log.warn({ accountId: d.accountId }, 'lease lost to another node; closing the connection');
        await d.stop({ release: false });
      }
    }

    for (const row of await ownedAccountRows(db, nodeId)) {
      if (this.stopping) return;
      const d = this.drivers.get(row.accountId);
      if (!d) {
        if (!this.leaving.has(row.accountId)) await releaseLease(db, nodeId, row.accountId);
        continue;
      }
      if (row.desiredState === 'stopped') {
        await d.stop({ release: true });
        continue;
      }
      await d.applyOrders(row);
    }

    if (this.stopping) return;
    for (const row of await claimFreeAccounts(db, nodeId, ttl)) {
      if (this.stopping) {
        await releaseLease(db, nodeId, row.accountId);
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
   * accounts, so this node closes its connections rather than drive them twice.
   */
  private async dropIfLeasesLapsed(): Promise<void> {
    if (this.stopping || Date.now() - this.lastRenewal < this.ctx.config.accountLeaseMs * 0.9) return;
    if (this.drivers.size === 0) return;
    this.ctx.log.error('leases could not be renewed in time; closing every connection of this node');
    for (const d of [...this.drivers.values()]) await d.stop({ release: false });
  }

  private async startDriver(row: AccountRow): Promise<void> {
    const { db, nodeId } = this.ctx;
    await updateOwnedAccount(db, nodeId, row.accountId, {
      status: 'PENDING',
      statusReason: row.sendPaused ? row.statusReason : null,
      qr: null,
      qrUpdatedAt: null,
      qrServedAt: null,
      ...NO_PAIRING,
      // A fresh start is what a restart order asks for.
      ...(row.command === 'restart' || row.command === 'reconnect' ? { command: null, commandAt: null } : {}),
    });
    let transport: Transport;
    try {
      transport = await this.buildTransport(this.ctx, {
        accountId: row.accountId,
        phoneNumber: row.phoneNumber,
      });
    } catch (err) {
      this.ctx.log.error({ err, accountId: row.accountId }, 'could not create the transport');
      await releaseLease(db, nodeId, row.accountId, {
        status: 'DISCONNECTED',
        statusReason: `Cannot start the connection: ${errorText(err)}`,
        desiredState: 'stopped',
      });
      return;
    }
    const d = new AccountDriver(this, row, transport);
    this.drivers.set(row.accountId, d);
    d.start();
  }

  /**
   * Scores the health of the accounts this node drives that may have changed since their last
   * evaluation (an idle account's stays as it was); the breaker acts on it (accounts/health).
   */
  private async evaluateHealth(): Promise<void> {
    if (this.evaluating || this.stopping) return;
    this.evaluating = true;
    try {
      const owned = [...this.drivers.keys()];
      const due = await accountsToEvaluate(
        this.ctx.db,
        owned,
        new Date(),
        DEFAULT_TIMEZONE,
        this.ctx.config.healthMarginMs,
      );
      for (const accountId of due) {
        if (this.stopping) return;
        await evaluateHealth(this.ctx, accountId).catch((err) => {
          if (!this.stopping) this.ctx.log.warn({ err, accountId }, 'account health check failed');
        });
      }
    } catch (err) {
      if (!this.stopping) this.ctx.log.warn({ err }, 'account health check failed');
    } finally {
      this.evaluating = false;
    }
  }

  /**
   * Sent messages older than two weeks go (kept for WhatsApp's retry requests and poll votes), and
   * number answers past their time and old held LID texts (transport/number-lookups.ts).
   */
  private async pruneSent(): Promise<void> {
    try {
      const n = (await pruneSentMessages(this.ctx.db)) + (await pruneNumberLookups(this.ctx.db));
      await pruneAccountEvents(this.ctx.db);
      if (n > 0) this.ctx.log.info({ rows: n }, 'old sent messages pruned');
    } catch (err) {
      if (!this.stopping) this.ctx.log.warn({ err }, 'pruning sent messages failed');
    }
  }

  publish<K extends keyof AccountRuntimeEvents>(event: K, ...args: AccountRuntimeEvents[K]): void {
    (this.emit as (e: K, ...a: AccountRuntimeEvents[K]) => boolean)(event, ...args);
  }

  forget(driver: AccountDriver): void {
    if (this.drivers.get(driver.accountId) === driver) this.drivers.delete(driver.accountId);
    this.leaving.set(driver.accountId, (this.leaving.get(driver.accountId) ?? 0) + 1);
  }

  settled(driver: AccountDriver): void {
    const left = (this.leaving.get(driver.accountId) ?? 1) - 1;
    if (left > 0) this.leaving.set(driver.accountId, left);
    else this.leaving.delete(driver.accountId);
  }

  restart(row: AccountRow): Promise<void> {
    return this.startDriver(row);
  }
}

/** Starts this node's runner: restores the accounts that should run, then keeps leases and reacts to changes. */
export async function startAccountRunner(
  ctx: AppContext,
  buildTransport?: TransportBuilder,
): Promise<AccountRunner> {
  const runner = new AccountRunner(ctx, buildTransport);
  await runner.start();
  return runner;
}
