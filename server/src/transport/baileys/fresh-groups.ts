import type { GroupMetadata } from 'baileys';
import { LRUCache } from 'lru-cache';
import type { CachedGroup, GroupInfo, GroupLookup } from '../types.ts';
import { toGroupInfo } from './mapping.ts';
import type { BaileysSocket } from './socket.ts';

/**
 * The group as a send must see it: the account's cache, read again from
 * WhatsApp first when the current socket has not read it (events missed while offline) or not for
 * `freshMs`, so that members added meanwhile get the sender key and can decrypt.
 */
export class FreshGroups {
  /** When each group's members were last read from WhatsApp, and by which socket. */
  private readonly readAt = new Map<string, { generation: number; at: number }>();
  /** Groups read again just before a send, until the account's cache has them (cachedGroupMetadata). */
  private readonly fresh = new LRUCache<string, GroupMetadata>({ max: 8, ttl: 60_000 });

  constructor(
    private readonly deps: {
      groups: GroupLookup;
      freshMs: number;
      /** A group read again, for the account's cache. */
      upsert: (info: GroupInfo) => void;
    },
  ) {}

  /** The account's cache as rc14's cachedGroupMetadata reads it: a group just read again first. */
  async lookup(groupId: string): Promise<CachedGroup | undefined> {
    const fresh = this.fresh.get(groupId);
    return fresh ? { ...toGroupInfo(fresh), isAdmin: false } : this.deps.groups(groupId);
  }

  /** Every group of the account was just read by the socket of `generation`. */
  readAll(ids: string[], generation: number): void {
    for (const id of ids) this.readAt.set(id, { generation, at: Date.now() });
  }

  /** The group before a send to it; a refused query throws as the socket's error. */
  async beforeSend(sock: BaileysSocket, generation: number, groupId: string) {
    const cached = await this.deps.groups(groupId);
    const read = this.readAt.get(groupId);
    if (read && read.generation === generation && Date.now() - read.at < this.deps.freshMs) return cached;
    const meta = await sock.groupMetadata(groupId);
    this.readAt.set(groupId, { generation, at: Date.now() });
    this.fresh.set(groupId, meta);
    const info = toGroupInfo(meta);
    this.deps.upsert(info);
    return { ...info, isAdmin: cached?.isAdmin ?? false };
  }
}
