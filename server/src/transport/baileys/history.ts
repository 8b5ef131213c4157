import { pipeline, Readable } from 'node:stream';
import { createInflate } from 'node:zlib';
import { isLidJid, isPhoneJid } from '@wa/contract';
import { downloadContentFromMessage, type proto } from 'baileys';
import type { FastifyBaseLogger } from 'fastify';
import type { BaileysSocket } from './socket.ts';

/**
 * The INITIAL_BOOTSTRAP history, read in pieces. rc14 downloads it, inflates it
 * whole into one buffer and decodes every conversation with every message
 * (Utils/history.js downloadHistory, processHistoryMessage): for a busy phone hundreds of MB at
 * link time, several accounts linking at once stacking the spikes. The product keeps only what
 * the bootstrap is read for, the LID ↔ number mappings of the contacts (rc14 stores them,
 * Utils/process-message.js: storeLIDPNMappings), so socket.ts refuses it to rc14 and this reads
 * the inflated stream one top-level field at a time (a conversation is the largest piece), skips
 * the messages, and stores the mappings in batches. One bootstrap at a time in the process.
 */

export type LidPn = { lid: string; pn: string };

/** What one reading found: conversations and mappings, the largest piece held at once. */
export type BootstrapRead = { conversations: number; mappings: number; largestPieceBytes: number };

const WIRE_VARINT = 0;
const WIRE_64 = 1;
const WIRE_BYTES = 2;
const WIRE_32 = 5;

/** A protobuf reader over one piece (a Buffer): varints, strings, skips. */
class Piece {
  pos = 0;
  constructor(private readonly buf: Buffer) {}
  get done() {
    return this.pos >= this.buf.length;
  }
  varint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.buf[this.pos++];
      if (b === undefined) throw new Error('truncated varint');
      if (shift < 49) result += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return result;
      shift += 7;
    }
  }
  bytes(): Buffer {
    const n = this.varint();
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  skip(wire: number): void {
    if (wire === WIRE_VARINT) this.varint();
    else if (wire === WIRE_64) this.pos += 8;
    else if (wire === WIRE_BYTES) {
      const n = this.varint(); // read before `pos` (`pos += varint()` would add to the old pos)
      this.pos += n;
    } else if (wire === WIRE_32) this.pos += 4;
    else throw new Error(`unknown wire type ${wire}`);
  }
}

/**
 * The string and number (varint) fields `wanted` of one message piece (by field number), strings
 * and numbers apart; other fields are skipped.
 */
function fieldsOf(
  piece: Buffer,
  wanted: Set<number>,
): { text: Map<number, string>; num: Map<number, number> } {
  const text = new Map<number, string>();
  const num = new Map<number, number>();
  const r = new Piece(piece);
  while (!r.done) {
    const tag = r.varint();
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    if (wire === WIRE_BYTES && wanted.has(field)) text.set(field, r.bytes().toString('utf8'));
    else if (wire === WIRE_VARINT && wanted.has(field)) num.set(field, r.varint());
    else r.skip(wire);
  }
  return { text, num };
}

/**
 * The top-level fields of a protobuf stream, one at a time: a length-delimited field is gathered
 * whole (its chunks concatenated once), others are skipped.
 */
async function* topLevelFields(
  stream: AsyncIterable<Buffer>,
): AsyncGenerator<{ field: number; bytes: Buffer }> {
  const it = stream[Symbol.asyncIterator]();
  let buf: Buffer = Buffer.alloc(0);
  const more = async (): Promise<boolean> => {
    const next = await it.next();
    if (next.done) return false;
    buf = buf.length === 0 ? next.value : Buffer.concat([buf, next.value]);
    return true;
  };
  /** A varint from the head of `buf`, reading more when it is cut; null at the stream's end. */
  const varint = async (): Promise<number | null> => {
    for (;;) {
      let end = 0;
      while (end < buf.length && buf[end]! >= 0x80) end++;
      if (end < buf.length) {
        const r = new Piece(buf.subarray(0, end + 1));
        const v = r.varint();
        buf = buf.subarray(end + 1);
        return v;
      }
      if (!(await more())) {
        if (buf.length === 0) return null;
        throw new Error('truncated history');
      }
    }
  };
  const take = async (n: number): Promise<Buffer> => {
    const parts: Buffer[] = [];
    let have = 0;
    for (;;) {
      const use = Math.min(n - have, buf.length);
      parts.push(buf.subarray(0, use));
      buf = buf.subarray(use);
      have += use;
      if (have === n) return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
      const next = await it.next();
      if (next.done) throw new Error('truncated history');
      buf = next.value;
    }
  };
  for (;;) {
    const tag = await varint();
    if (tag === null) return;
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    if (wire === WIRE_BYTES) yield { field, bytes: await take((await varint()) ?? 0) };
    else if (wire === WIRE_VARINT) await varint();
    else if (wire === WIRE_64) await take(8);
    else if (wire === WIRE_32) await take(4);
    else throw new Error(`unknown wire type ${wire}`);
  }
}

// HistorySync (WAProto.proto): conversations = 2, phoneNumberToLidMappings = 15.
// Conversation: id = 1, ephemeralExpiration = 9, pnJid = 39, lidJid = 42, accountLid = 49.
// PhoneNumberToLIDMapping: pnJid = 1, lidJid = 2.
const CONVERSATION_FIELDS = new Set([1, 9, 39, 42, 49]);
const MAPPING_FIELDS = new Set([1, 2]);
const isLid = (jid: string | undefined) => !!jid && isLidJid(jid);
const isPn = (jid: string | undefined) => !!jid && isPhoneJid(jid);

/** A one-to-one chat of the history with its disappearing-messages timer (its JIDs: id, number, LID). */
export type ChatTimer = { jids: string[]; seconds: number };

/**
 * Reads an inflated HistorySync stream and hands its LID ↔ number mappings to `store`, 500 at a
 * time: those listed (phoneNumberToLidMappings) and those of each one-to-one conversation (its id
 * and its pnJid or lidJid), as rc14's processHistoryMessage finds them; and to `timers` each
 * one-to-one conversation whose messages disappear (its ephemeralExpiration, which rc14 keeps on
 * the chats it reports, Utils/history.js).
 */
export async function readBootstrap(
  inflated: AsyncIterable<Buffer>,
  store: (pairs: LidPn[]) => Promise<void>,
  timers: (chats: ChatTimer[]) => void = () => {},
): Promise<BootstrapRead> {
  const read: BootstrapRead = { conversations: 0, mappings: 0, largestPieceBytes: 0 };
  let pending: LidPn[] = [];
  const add = async (lid: string | undefined, pn: string | undefined) => {
    if (!isLid(lid) || !isPn(pn)) return;
    pending.push({ lid: lid!, pn: pn! });
    read.mappings++;
    if (pending.length >= 500) {
      await store(pending);
      pending = [];
    }
  };
  for await (const { field, bytes } of topLevelFields(inflated)) {
    read.largestPieceBytes = Math.max(read.largestPieceBytes, bytes.length);
    if (field === 2) {
      read.conversations++;
      const { text: c, num } = fieldsOf(bytes, CONVERSATION_FIELDS);
      const id = c.get(1);
      const other = isLid(id) ? c.get(39) : isPn(id) ? (c.get(42) ?? c.get(49)) : undefined;
      if (isLid(id)) await add(id, other);
      else if (isPn(id)) await add(other, id);
      const seconds = num.get(9) ?? 0;
      if (seconds > 0 && (isLid(id) || isPn(id)))
        timers([{ jids: [id!, ...(isLid(other) || isPn(other) ? [other!] : [])], seconds }]);
    } else if (field === 15) {
      const { text: m } = fieldsOf(bytes, MAPPING_FIELDS);
      await add(m.get(2), m.get(1));
    }
  }
  if (pending.length > 0) await store(pending);
  return read;
}

let turn: Promise<unknown> = Promise.resolve();

/**
 * The bootstrap a notification announces (inline, or downloaded as rc14's downloadHistory does:
 * media type 'md-msg-hist', with `fetchOptions`: the account's proxy, as rc14 downloads with its
 * socket's `options`), read in pieces into the socket's LID mapping store and the chats' timers.
 * One at a time in the process.
 */
export function takeBootstrap(
  sock: BaileysSocket,
  notification: proto.Message.IHistorySyncNotification,
  log: FastifyBaseLogger,
  timers?: (chats: ChatTimer[]) => void,
  fetchOptions?: RequestInit,
): Promise<BootstrapRead | null> {
  const run = async () => {
    const source = notification.initialHistBootstrapInlinePayload?.length
      ? Readable.from([Buffer.from(notification.initialHistBootstrapInlinePayload)])
      : await downloadContentFromMessage(
          notification as Parameters<typeof downloadContentFromMessage>[0],
          'md-msg-hist',
          fetchOptions ? { options: fetchOptions } : {},
        );
    const inflated = createInflate();
    pipeline(source, inflated, (err) => {
      if (err) inflated.destroy(err);
    });
    const read = await readBootstrap(
      inflated,
      (pairs) => sock.signalRepository.lidMapping.storeLIDPNMappings(pairs),
      timers,
    );
    log.info(read, 'history bootstrap read');
    return read;
  };
  const mine = turn.then(run, run).catch((err) => {
    log.warn({ err }, 'history bootstrap could not be read');
    return null;
  });
  turn = mine;
  return mine;
}
