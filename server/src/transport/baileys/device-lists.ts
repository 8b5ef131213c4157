import { chatIdOfLid, chatIdOfPhone, jidUser } from '@wa/contract';
import type { PossiblyExtendedCacheStore } from 'baileys';
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { AuthStore } from '../auth-store.ts';

/** One device of a user as rc14's getUSyncDevices caches it (Utils/signal.js extractDeviceJids). */
type Device = { user: string; device?: number; server?: string; domainType?: number };
type Entry = { at: number; devices: Device[] };

/** Where a user's device list is kept among the account's keys (wa_auth_state), beside rc14's own. */
const keyOf = (user: string) => `devices-of-${user}`;

/**
 * rc14's `userDevicesCache` (Socket/messages-send.js getUSyncDevices; Socket/messages-recv.js
 * handleDevicesNotification), kept among the account's keys as well as in memory, so that a
 * restart or another node sends to known recipients without asking WhatsApp for their devices
 * again (each such answer names a LID that rc14 passes to assertSessions(lids, true), a forced key
 * fetch). A list is trusted `ttlMs` from when WhatsApp gave it. rc14 applies a device notification
 * to the user it came from only; whatsmeow (notification.go handleDeviceNotification) updates the
 * list under the phone number and under the LID alike, so a change here is written to the other
 * one too when the LID mapping is known. A logout wipes them with the keys.
 */
export class DeviceLists implements PossiblyExtendedCacheStore {
  private readonly memory: LRUCache<string, Entry>;

  constructor(
    private readonly deps: {
      auth: AuthStore | undefined;
      ttlMs: number;
      /** The other JID of a user from the LID mappings rc14 stored (stored-mappings.ts storedLid, storedPn). */
      lidOf: (pnJid: string) => Promise<string | null>;
      pnOf: (lidJid: string) => Promise<string | null>;
      log: FastifyBaseLogger;
    },
  ) {
    this.memory = new LRUCache<string, Entry>({ max: 20_000 });
  }

  /** rc14 reads a missing list as undefined (`(await get(user)) || []`). */
  async get<T>(user: string): Promise<T> {
    return (await this.mget<T>([user]))[user] as T;
  }

  async mget<T>(users: string[]): Promise<Record<string, T | undefined>> {
    const out: Record<string, T | undefined> = {};
    const missing: string[] = [];
    for (const u of users) {
      const e = this.fresh(this.memory.get(u));
      if (e) out[u] = e.devices as T;
      else missing.push(u);
    }
    if (missing.length === 0 || !this.deps.auth) return out;
    const stored = await this.deps.auth.readMany(missing.map(keyOf)).catch((err: unknown) => {
      this.deps.log.warn({ err }, 'could not read device lists');
      return new Map<string, string>();
    });
    const unknown: string[] = [];
    for (const u of missing) {
      const text = stored.get(keyOf(u));
      const e = this.fresh(text ? (JSON.parse(text) as Entry) : undefined);
      if (!e) {
        unknown.push(u);
        continue;
      }
      this.memory.set(u, e);
      out[u] = e.devices as T;
    }
    // A list kept under the user's other JID: rc14 stores the LID a device answer names inside the
    // send's key transaction, so the mapping may have come only after the list was kept.
    for (const u of unknown) {
      const other = (await this.counterpart(u, 'lid')) ?? (await this.counterpart(u, 's.whatsapp.net'));
      const e = other ? await this.stored(other.user) : undefined;
      if (!other || !e) continue;
      const server = other.server === 'lid' ? 's.whatsapp.net' : 'lid';
      const mine = { at: e.at, devices: e.devices.map((d) => ({ ...d, user: u, server })) };
      this.memory.set(u, mine);
      out[u] = mine.devices as T;
    }
    return out;
  }

  /**
   * WhatsApp's answer to a device query (rc14 getUSyncDevices, which stored the LIDs it named
   * first): kept under the user asked and its other JID, as the account sends to a contact by LID
   * once it knows it (outgoing.ts).
   */
  async mset<T>(entries: { key: string; value: T }[]): Promise<void> {
    const at = Date.now();
    const writes: Array<[string, Entry | null]> = [];
    for (const { key, value } of entries) writes.push(...(await this.both(key, value as Device[], at)));
    await this.write(writes);
  }

  /** A device notification's change (rc14 handleDevicesNotification): under the other JID too. */
  async set<T>(user: string, value: T): Promise<void> {
    await this.write(await this.both(user, value as Device[], this.memory.get(user)?.at ?? Date.now()));
  }

  /** `devices` of `user`, and the same devices under the user's other JID when the mapping is known. */
  private async both(user: string, devices: Device[], at: number): Promise<Array<[string, Entry]>> {
    const out: Array<[string, Entry]> = [[user, { at, devices }]];
    const other = await this.counterpart(user, devices[0]?.server);
    if (other)
      out.push([
        other.user,
        { at, devices: devices.map((d) => ({ ...d, user: other.user, server: other.server })) },
      ]);
    return out;
  }

  /** A device notification dropped the list (rc14: 'update', or no device left): under the other JID too. */
  async del(user: string): Promise<void> {
    const server = (await this.get<Device[] | undefined>(user))?.[0]?.server;
    const other = await this.counterpart(user, server);
    await this.write([[user, null], ...(other ? [[other.user, null] as [string, null]] : [])]);
  }

  flushAll(): void {
    this.memory.clear();
  }

  /** The list kept under `user` alone (no look at its other JID). */
  private async stored(user: string): Promise<Entry | undefined> {
    const inMemory = this.fresh(this.memory.get(user));
    if (inMemory || !this.deps.auth) return inMemory;
    const text = await this.deps.auth.read(keyOf(user)).catch(() => null);
    return this.fresh(text ? (JSON.parse(text) as Entry) : undefined);
  }

  private fresh(e: Entry | undefined): Entry | undefined {
    return e && e.at + this.deps.ttlMs > Date.now() ? e : undefined;
  }

  /** The user's other identity (its LID for a number, its number for a LID), where rc14 stored the mapping. */
  private async counterpart(
    user: string,
    server: string | undefined,
  ): Promise<{ user: string; server: string } | null> {
    if (!server) return null;
    const jid =
      server === 'lid' ? await this.deps.pnOf(chatIdOfLid(user)) : await this.deps.lidOf(chatIdOfPhone(user));
    return jid ? { user: jidUser(jid), server: server === 'lid' ? 's.whatsapp.net' : 'lid' } : null;
  }

  private async write(entries: Array<[string, Entry | null]>): Promise<void> {
    for (const [u, e] of entries) {
      if (e) this.memory.set(u, e);
      else this.memory.delete(u);
    }
    await this.deps.auth
      ?.write(entries.map(([u, e]) => ({ key: keyOf(u), value: e ? JSON.stringify(e) : null })))
      .catch((err: unknown) => this.deps.log.warn({ err }, 'could not keep device lists'));
  }
}
