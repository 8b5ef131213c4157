import { chatIdOfPhone, jidUser } from '@wa/contract';
import {
  type BinaryNode,
  type CacheStore,
  DEFAULT_CONNECTION_CONFIG,
  type PossiblyExtendedCacheStore,
  USyncQuery,
  USyncUser,
} from 'baileys';
import { LRUCache } from 'lru-cache';
import type { NumberStore } from '../number-lookups.ts';
import type { BaileysSocket } from './socket.ts';

/** A contact answer with the number it answers (EchoedContactProtocol). */
type EchoedContact = { in: boolean; query: string };

/**
 * rc14's contact protocol (WAUSync/Protocols/USyncContactProtocol.js: a user asked by `+phone`,
 * in/out read from the answer's `type`) that also keeps the number the answer echoes (the
 * `<contact>` node's content); an answer without one is no answer here (parsed as null).
 */
const ECHOED_CONTACT = {
  name: 'contact',
  getQueryElement: (): BinaryNode => ({ tag: 'contact', attrs: {} }),
  getUserElement: (user: USyncUser): BinaryNode => ({ tag: 'contact', attrs: {}, content: user.phone ?? '' }),
  parser: (node: BinaryNode): EchoedContact | null => {
    if (node.tag !== 'contact') return null;
    const content = node.content;
    const query =
      typeof content === 'string'
        ? content
        : content instanceof Uint8Array
          ? Buffer.from(content).toString()
          : '';
    return query ? { in: node.attrs.type === 'in', query } : null;
  },
};

/** How long a device list is trusted; rc14's own default is 5 minutes (Defaults/index.js USER_DEVICES). */
export const DEVICE_LIST_TTL_MS = 24 * 3_600_000;
/** How long a retry count is kept: rc14's default (Defaults/index.js MSG_RETRY, 1 hour). */
const RETRY_COUNT_TTL_MS = 3_600_000;
/** rc14 sends a message again while its count is below this (Defaults/index.js maxMsgRetryCount). */
const MAX_MSG_RETRY_COUNT = DEFAULT_CONNECTION_CONFIG.maxMsgRetryCount;

/**
 * A Baileys CacheStore over lru-cache. The clock is the wall clock (Date), as rc14's own NodeCache
 * (@cacheable/node-cache) reads it: a machine that slept or a moved clock ages entries alike.
 */
function cacheStore(max: number, ttl: number): PossiblyExtendedCacheStore {
  const cache = new LRUCache<string, NonNullable<unknown>>({ max, ttl, perf: Date });
  return {
    get: <T>(key: string) => cache.get(key) as T | undefined,
    set: <T>(key: string, value: T) => {
      if (value === undefined || value === null) cache.delete(key);
      else cache.set(key, value);
    },
    del: (key: string) => cache.delete(key),
    flushAll: () => cache.clear(),
  };
}

/** How a job's numbers are asked: this many in one query, queries this far apart at least. */
export type LookupBatches = { size: number; spacingMs: number };

/** What the account learns through its lookups and retry counts, for the transport to act on. */
export type LookupHooks = {
  /** After a query, with the JIDs of the numbers on WhatsApp (lid-texts.ts asks their LIDs then). */
  answered?: (sock: BaileysSocket, jids: string[]) => Promise<void>;
  /** Numbers the store or WhatsApp answered are not on WhatsApp, as phone chat ids. */
  missing?: (chatIds: string[]) => void;
  /** rc14 will not send this message again to a device that asked (its retry count reached the maximum). */
  retriesGivenUp?: (messageId: string) => void;
};

/**
 * rc14's retry counts (Socket/messages-recv.js): a retry receipt for message `id` from
 * `participant` counts `id:participant` up twice (handleReceipt's updateSendMessageAgainCount, then
 * sendMessagesAgain's), and the message is relayed again only while the count is below
 * maxMsgRetryCount: the set that reaches it is the retry rc14 no longer answers ('will not send
 * message again'). The third retry receipt of one device, with rc14's 5.
 */
function countingRetries(counts: CacheStore, givenUp: (messageId: string) => void): CacheStore {
  return {
    get: (key) => counts.get(key),
    set: (key, value) => {
      // cacheStore's get answers at once (lru-cache), never a promise.
      const before = counts.get<number>(key) as number | undefined;
      counts.set(key, value);
      if (typeof value === 'number' && value >= MAX_MSG_RETRY_COUNT && (before ?? 0) < MAX_MSG_RETRY_COUNT)
        givenUp(key.slice(0, key.indexOf(':')));
    },
    del: (key) => counts.del(key),
    flushAll: () => counts.flushAll(),
  };
}

/**
 * What one account looked up, kept across its sockets (a reconnect must not forget it):
 * - `onWhatsApp` answers (digits → chat JID, '' when not on WhatsApp), trusted for their TTL, in
 *   memory and in the store all nodes share (one query per recipient, inline, is
 *   the scraping signal; a job's numbers are asked `batches.size` at a time, spaced);
 * - `devices`, rc14's `userDevicesCache`: without one, rc14 keeps device lists 5 minutes per
 *   socket (Socket/messages-send.js getUSyncDevices), and every miss answers LIDs that it then
 *   passes to assertSessions(lids, true), a forced key fetch (`reason="identity"`) that burns a
 *   one-time prekey and resets the Signal session of every new recipient and every member of a PN
 *   group sent to after 5 minutes. rc14 keeps this cache right by itself: a device notification
 *   (Socket/messages-recv.js handleDevicesNotification) drops a user's list on 'update' and
 *   applies 'add'/'remove' to it; the transport's (device-lists.ts) survives a restart;
 * - `retryCounts`, rc14's `msgRetryCounterCache` (Socket/messages-recv.js): how often each
 *   message was asked for again; a new socket's own cache started at 0, so a recipient that
 *   cannot decrypt made the account resend the message again after every reconnect.
 */
export class LookupCaches {
  private readonly numbers = new LRUCache<string, string>({ max: 50_000 });
  readonly retryCounts: CacheStore;
  /** The queries of this account one after the other, `batches.spacingMs` apart. */
  private gate: Promise<void> = Promise.resolve();
  private lastQueryAt = 0;

  constructor(
    private readonly ttlMs: { found: number; missing: number },
    private readonly store: NumberStore | undefined,
    private readonly batches: LookupBatches,
    private readonly hooks: LookupHooks = {},
    /** Device lists (device-lists.ts keeps them across restarts); in memory without. */
    readonly devices: PossiblyExtendedCacheStore = cacheStore(20_000, DEVICE_LIST_TTL_MS),
  ) {
    const counts = cacheStore(10_000, RETRY_COUNT_TTL_MS);
    this.retryCounts = hooks.retriesGivenUp ? countingRetries(counts, hooks.retriesGivenUp) : counts;
  }

  /** Forgets everything (the account logged out: a next link may be another phone). */
  clear(): void {
    this.numbers.clear();
    void this.devices.flushAll();
    void this.retryCounts.flushAll();
  }

  /**
   * Which numbers are on WhatsApp, with the chat JID WhatsApp answers for each: from memory, then
   * the shared store, then WhatsApp. With `lookAhead` (a send), the query also asks the account's
   * next queued numbers that have no answer yet, up to `batches.size`: a job of N numbers makes
   * about N / size queries, the first when its first message goes.
   */
  async onWhatsApp(
    sock: BaileysSocket,
    phoneNumbers: string[],
    lookAhead = false,
  ): Promise<Map<string, string | null>> {
    const out = new Map<string, string | null>();
    const digitsOf = (p: string) => p.replace(/\D/g, '');
    let unknown: string[] = [];
    /** Numbers the store or WhatsApp answered are not on WhatsApp (not those in memory: told before). */
    const notOnWhatsApp: string[] = [];
    for (const p of phoneNumbers) {
      const cached = this.numbers.get(digitsOf(p));
      if (cached !== undefined) out.set(p, cached || null);
      else unknown.push(p);
    }
    if (unknown.length > 0 && this.store) {
      const stored = await this.store.read(unknown.map(digitsOf));
      unknown = unknown.filter((p) => {
        const jid = stored.get(digitsOf(p));
        if (jid === undefined) return true;
        this.numbers.set(digitsOf(p), jid ?? '', { ttl: jid ? this.ttlMs.found : this.ttlMs.missing });
        out.set(p, jid);
        if (!jid) notOnWhatsApp.push(digitsOf(p));
        return false;
      });
    }
    if (unknown.length === 0) {
      this.reportMissing(notOnWhatsApp);
      return out;
    }
    const answers = await this.spaced(async () => {
      const asked = new Set(unknown.map(digitsOf));
      if (lookAhead && this.store)
        for (const p of await this.store.upcoming(this.batches.size)) {
          if (asked.size >= Math.max(this.batches.size, unknown.length)) break;
          asked.add(p);
        }
      const answers = await this.ask(sock, [...asked]);
      await this.hooks.answered?.(
        sock,
        [...answers.values()].filter((j): j is string => !!j),
      );
      return answers;
    });
    const { found, missing } = this.ttlMs;
    for (const [digits, jid] of answers) this.numbers.set(digits, jid ?? '', { ttl: jid ? found : missing });
    await this.store?.write(
      [...answers].map(([phone, jid]) => ({ phone, jid, ttlMs: jid ? found : missing })),
    );
    for (const p of unknown) out.set(p, answers.get(digitsOf(p)) ?? null);
    for (const [digits, jid] of answers) if (!jid) notOnWhatsApp.push(digits);
    this.reportMissing(notOnWhatsApp);
    return out;
  }

  private reportMissing(digits: string[]): void {
    if (digits.length > 0) this.hooks.missing?.([...new Set(digits)].map(chatIdOfPhone));
  }

  /** One query at a time, at least `batches.spacingMs` after the previous one. */
  private spaced<T>(run: () => Promise<T>): Promise<T> {
    const turn = this.gate.then(async () => {
      const wait = this.lastQueryAt + this.batches.spacingMs - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      try {
        return await run();
      } finally {
        this.lastQueryAt = Date.now();
      }
    });
    this.gate = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  /**
   * WhatsApp's answer for these numbers (digits). That JID may differ from the number asked
   * (Brazil's 9th digit, Mexico's 52 1, Argentina's 54 9): the server answers each user of the
   * contact query with the number it was asked echoed in its `<contact>` (whatsmeow user.go
   * IsOnWhatsApp reads it as the response's Query), so one query of the batch pairs every answer
   * with its number. rc14's onWhatsApp (Socket/socket.js) drops the echo (its contact protocol's
   * parser keeps only in/out), so the query is ours, through rc14's executeUSyncQuery. Answers
   * without the echo are paired as rc14's onWhatsApp lists them: by the JID's number, and numbers
   * left unpaired are asked one at a time.
   */
  private async ask(sock: BaileysSocket, numbers: string[]): Promise<Map<string, string | null>> {
    const answers = new Map<string, string | null>();
    const asked = new Set(numbers);
    const batch = new USyncQuery();
    batch.protocols.push(ECHOED_CONTACT);
    for (const digits of numbers) batch.withUser(new USyncUser().withPhone(`+${digits}`));
    for (const u of (await sock.executeUSyncQuery(batch))?.list ?? []) {
      const contact = u.contact as EchoedContact | undefined;
      const digits = contact?.query.replace(/\D/g, '');
      if (contact && digits && asked.has(digits) && !answers.has(digits))
        answers.set(digits, contact.in ? u.id : null);
    }
    const left = numbers.filter((d) => !answers.has(d));
    if (left.length === 0) return answers;
    const query = async (list: string[]) => ((await sock.onWhatsApp(...list)) ?? []).filter((r) => r.exists);
    const results = await query(left);
    const unmatched = new Set(results.map((r) => r.jid));
    const unpaired: string[] = [];
    for (const digits of left) {
      const hit = results.find((r) => jidUser(r.jid) === digits);
      if (hit) {
        unmatched.delete(hit.jid);
        answers.set(digits, hit.jid);
      } else unpaired.push(digits);
    }
    if (unmatched.size === 0) for (const p of unpaired) answers.set(p, null);
    else if (unpaired.length === 1) answers.set(unpaired[0]!, [...unmatched][0]!);
    else for (const p of unpaired) answers.set(p, (await query([p]))[0]?.jid ?? null);
    return answers;
  }
}
