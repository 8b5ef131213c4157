import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createInflateRaw } from 'node:zlib';

/**
 * Reading the entries of a zip file on disk (an uploaded .xlsx) one at a time, as a stream that
 * stops at a byte bound: the central directory is read from the end of the file (sizes in local
 * headers may be zero), and an entry inflates through zlib on the thread pool. The sizes a zip
 * declares are never trusted: the bound counts the bytes actually inflated.
 */
export type ZipEntry = {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  offset: number;
};

/** The file is not a zip this reader takes (damaged, encrypted, zip64, or an unknown method). */
export class ZipError extends Error {}

/** An entry inflated to more than the bound given. */
export class ZipEntryTooLarge extends Error {}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** An .xlsx has a dozen entries; a directory of megabytes is not an .xlsx. */
const MAX_CENTRAL_BYTES = 4 * 1024 * 1024;

export async function zipEntries(file: string): Promise<Map<string, ZipEntry>> {
  const fh = await fs.open(file, 'r');
  try {
    const { size } = await fh.stat();
    const tailLength = Math.min(size, 22 + 0xffff);
    const tail = Buffer.alloc(tailLength);
    await fh.read(tail, 0, tailLength, size - tailLength);
    let eocd = -1;
    for (let i = tailLength - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD) {
        eocd = i;
        break;
      }
    }
    if (eocd === -1) throw new ZipError('no end of central directory');
    const centralSize = tail.readUInt32LE(eocd + 12);
    const centralOffset = tail.readUInt32LE(eocd + 16);
    if (centralSize > MAX_CENTRAL_BYTES || centralOffset + centralSize > size)
      throw new ZipError('central directory out of bounds');
    const central = Buffer.alloc(centralSize);
    await fh.read(central, 0, centralSize, centralOffset);
    const entries = new Map<string, ZipEntry>();
    for (let p = 0; p + 46 <= centralSize; ) {
      if (central.readUInt32LE(p) !== CENTRAL) throw new ZipError('bad central directory entry');
      const nameLength = central.readUInt16LE(p + 28);
      const entry: ZipEntry = {
        flags: central.readUInt16LE(p + 8),
        method: central.readUInt16LE(p + 10),
        compressedSize: central.readUInt32LE(p + 20),
        offset: central.readUInt32LE(p + 42),
        name: central.toString('utf8', p + 46, p + 46 + nameLength),
      };
      if (entry.compressedSize === 0xffffffff || entry.offset === 0xffffffff) throw new ZipError('zip64');
      entries.set(entry.name.replace(/^\//, ''), entry);
      p += 46 + nameLength + central.readUInt16LE(p + 30) + central.readUInt16LE(p + 32);
    }
    return entries;
  } finally {
    await fh.close();
  }
}

/**
 * The bytes of `entry`, inflated, in chunks; throws ZipEntryTooLarge past `maxBytes`. Leaving
 * the loop early (the row limit) closes the file and the inflater.
 */
export async function* zipEntryBytes(
  file: string,
  entry: ZipEntry,
  maxBytes: number,
): AsyncGenerator<Buffer> {
  if (entry.flags & 1) throw new ZipError('encrypted');
  if (entry.method !== 0 && entry.method !== 8) throw new ZipError(`method ${entry.method}`);
  const header = Buffer.alloc(30);
  const fh = await fs.open(file, 'r');
  try {
    await fh.read(header, 0, 30, entry.offset);
  } finally {
    await fh.close();
  }
  if (header.readUInt32LE(0) !== LOCAL) throw new ZipError('bad local header');
  const start = entry.offset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  if (entry.compressedSize === 0) return;
  const raw = createReadStream(file, {
    start,
    end: start + entry.compressedSize - 1,
    highWaterMark: 64 * 1024,
  });
  let source: AsyncIterable<Buffer> = raw;
  let done: Promise<void> = Promise.resolve();
  if (entry.method === 8) {
    const inflate = createInflateRaw({ chunkSize: 64 * 1024 });
    done = pipeline(raw, inflate).catch(() => {});
    source = inflate;
  }
  let total = 0;
  try {
    for await (const chunk of source) {
      total += chunk.length;
      if (total > maxBytes) throw new ZipEntryTooLarge();
      yield chunk;
    }
  } catch (e) {
    if (e instanceof ZipEntryTooLarge) throw e;
    throw new ZipError(`inflate: ${String(e)}`);
  } finally {
    raw.destroy();
    await done;
  }
}
