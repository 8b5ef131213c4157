/**
 * The few lines of POSIX ustar that a backup needs: regular files with short names, written
 * and read whole. `tar tf backup.tar` lists what a backup holds.
 */
export type TarEntry = { name: string; data: Buffer; mode?: number };

const BLOCK = 512;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(entry: TarEntry, mtime: number): Buffer {
  if (Buffer.byteLength(entry.name) > 100) throw new Error(`tar: name too long: ${entry.name}`);
  const h = Buffer.alloc(BLOCK);
  h.write(entry.name, 0, 100, 'utf8');
  h.write(octal(entry.mode ?? 0o600, 8), 100, 8, 'ascii');
  h.write(octal(0, 8), 108, 8, 'ascii');
  h.write(octal(0, 8), 116, 8, 'ascii');
  h.write(octal(entry.data.length, 12), 124, 12, 'ascii');
  h.write(octal(mtime, 12), 136, 12, 'ascii');
  h.write('        ', 148, 8, 'ascii');
  h.write('0', 156, 1, 'ascii');
  h.write('ustar\u000000', 257, 8, 'ascii');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return h;
}

export function writeTar(entries: TarEntry[], mtime = Math.floor(Date.now() / 1000)): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    parts.push(header(entry, mtime), entry.data);
    const pad = (BLOCK - (entry.data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

/** The regular files of a tar archive; throws on anything that is not one. */
export function readTar(archive: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let at = 0;
  while (at + BLOCK <= archive.length) {
    const h = archive.subarray(at, at + BLOCK);
    if (h.every((b) => b === 0)) return entries;
    if (h.toString('ascii', 257, 262) !== 'ustar') throw new Error('not a tar archive');
    let sum = 0;
    for (let i = 0; i < BLOCK; i += 1) sum += i >= 148 && i < 156 ? 32 : h[i]!;
    if (sum !== Number.parseInt(h.toString('ascii', 148, 156).replace(/\0.*$/s, '').trim(), 8))
      throw new Error('tar header checksum mismatch');
    const name = h.toString('utf8', 0, 100).replace(/\0.*$/s, '');
    const size = Number.parseInt(h.toString('ascii', 124, 136).replace(/\0.*$/s, '').trim() || '0', 8);
    const type = h.toString('ascii', 156, 157);
    const start = at + BLOCK;
    if (start + size > archive.length) throw new Error('tar archive is cut short');
    if (type === '0' || type === '\0') entries.push({ name, data: archive.subarray(start, start + size) });
    at = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  throw new Error('tar archive is cut short');
}
