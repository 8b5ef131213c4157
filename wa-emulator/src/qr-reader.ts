import { PNG } from 'pngjs';
import QRCode, { type QRCodeMaskPattern } from 'qrcode';
import ECCode from 'qrcode/lib/core/error-correction-code.js';
import ECLevel from 'qrcode/lib/core/error-correction-level.js';
import FormatInfo from 'qrcode/lib/core/format-info.js';
import QrUtils from 'qrcode/lib/core/utils.js';

/**
 * The phone's camera: reads the text of a QR code from a PNG as the product serves it (an
 * upright, unrotated symbol on a light background, any scale and quiet zone). Written for the
 * emulator (ISO/IEC 18004 sampling, format information, unmasking, block de-interleaving,
 * numeric / alphanumeric / byte segments); the `qrcode` package gives only its tables. No error
 * correction is attempted: instead the text read is encoded again and must give the very same
 * modules, so a misread can never pass as a scan.
 */
export function readQrPng(png: Buffer): string {
  const image = PNG.sync.read(png);
  const dark = (x: number, y: number) => {
    const i = (Math.round(y) * image.width + Math.round(x)) * 4;
    return image.data[i]! + image.data[i + 1]! + image.data[i + 2]! < 384 && image.data[i + 3]! > 127;
  };
  // The top edge of the upper finder patterns: the first row with a dark pixel.
  let y0 = -1;
  let x0 = -1;
  let x1 = -1;
  for (let y = 0; y < image.height && y0 < 0; y++) {
    for (let x = 0; x < image.width; x++) {
      if (!dark(x, y)) continue;
      if (x0 < 0) x0 = x;
      x1 = x;
    }
    if (x0 >= 0) y0 = y;
  }
  if (y0 < 0) throw new Error('no QR code in the image');
  let run = 0;
  while (dark(x0 + run, y0)) run++;
  const roughModule = run / 7;
  // Row 6 holds the timing pattern between the two upper finders: its runs count the modules.
  const timingY = y0 + 6.5 * roughModule;
  let runs = 0;
  let previous: boolean | null = null;
  for (let x = x0; x <= x1; x++) {
    const d = dark(x, timingY);
    if (d !== previous) runs++;
    previous = d;
  }
  const size = runs + 12;
  const version = (size - 17) / 4;
  if (!Number.isInteger(version) || version < 1 || version > 40)
    throw new Error(`unreadable QR code (${size} modules wide)`);
  const module = (x1 - x0 + 1) / size;
  const grid: boolean[][] = [];
  for (let r = 0; r < size; r++) {
    const row: boolean[] = [];
    for (let c = 0; c < size; c++) row.push(dark(x0 + (c + 0.5) * module, y0 + (r + 0.5) * module));
    grid.push(row);
  }

  const { level, mask } = readFormat(grid, size);
  const maskPattern = mask as QRCodeMaskPattern;
  // The function patterns of this version (finders, timing, alignment, format and version areas).
  const reference = QRCode.create('0', { version, errorCorrectionLevel: level, maskPattern });
  const reserved = (r: number, c: number) => reference.modules.reservedBit[r * size + c] === 1;

  const codewords: number[] = [];
  let current = 0;
  let bits = 0;
  let up = true;
  for (let col = size - 1; col > 0; col -= 2) {
    if (col === 6) col--;
    for (let i = 0; i < size; i++) {
      const r = up ? size - 1 - i : i;
      for (let c = col; c > col - 2; c--) {
        if (reserved(r, c)) continue;
        current = (current << 1) | (grid[r]![c]! !== maskAt(mask, r, c) ? 1 : 0);
        if (++bits === 8) {
          codewords.push(current);
          current = 0;
          bits = 0;
        }
      }
    }
    up = !up;
  }

  const data = deinterleave(codewords, version, level);
  const text = readSegments(data, version);
  const check = QRCode.create(text, { version, errorCorrectionLevel: level, maskPattern });
  for (let r = 0; r < size; r++)
    for (let c = 0; c < size; c++)
      if ((check.modules.data[r * size + c] === 1) !== grid[r]![c])
        throw new Error('the QR code was misread (its text does not encode to the same modules)');
  return text;
}

const LEVELS = ['L', 'M', 'Q', 'H'] as const;
type Level = (typeof LEVELS)[number];

/** The 15 format bits beside the top-left finder (positions as in the qrcode package's setupFormatInfo). */
function readFormat(grid: boolean[][], size: number): { level: Level; mask: number } {
  let read = 0;
  for (let i = 0; i < 15; i++) {
    const r = i < 6 ? i : i < 8 ? i + 1 : size - 15 + i;
    if (grid[r]![8]) read |= 1 << i;
  }
  let best: { level: Level; mask: number; distance: number } | null = null;
  for (const level of LEVELS)
    for (let mask = 0; mask < 8; mask++) {
      const expected = FormatInfo.getEncodedBits(ECLevel[level], mask);
      let distance = 0;
      for (let x = expected ^ read; x; x &= x - 1) distance++;
      if (!best || distance < best.distance) best = { level, mask, distance };
    }
  if (!best || best.distance > 3) throw new Error('unreadable QR format information');
  return best;
}

function maskAt(mask: number, i: number, j: number): boolean {
  switch (mask) {
    case 0:
      return (i + j) % 2 === 0;
    case 1:
      return i % 2 === 0;
    case 2:
      return j % 3 === 0;
    case 3:
      return (i + j) % 3 === 0;
    case 4:
      return (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0;
    case 5:
      return ((i * j) % 2) + ((i * j) % 3) === 0;
    case 6:
      return (((i * j) % 2) + ((i * j) % 3)) % 2 === 0;
    default:
      return (((i * j) % 3) + ((i + j) % 2)) % 2 === 0;
  }
}

/** The data codewords in order: blocks are interleaved codeword by codeword, shorter blocks first. */
function deinterleave(codewords: number[], version: number, level: Level): number[] {
  // The table functions compare levels by identity: they need the package's own level objects.
  const ecl = ECLevel[level];
  const total = QrUtils.getSymbolTotalCodewords(version);
  const dataTotal = total - ECCode.getTotalCodewordsCount(version, ecl);
  const blocks = ECCode.getBlocksCount(version, ecl);
  const inGroup2 = total % blocks;
  const inGroup1 = blocks - inGroup2;
  const dataPerBlock1 = Math.floor(dataTotal / blocks);
  const sizes = Array.from({ length: blocks }, (_, b) => (b < inGroup1 ? dataPerBlock1 : dataPerBlock1 + 1));
  const out: number[][] = sizes.map(() => []);
  let k = 0;
  for (let i = 0; i < dataPerBlock1 + 1; i++)
    for (let b = 0; b < blocks; b++) if (i < sizes[b]!) out[b]!.push(codewords[k++]!);
  return out.flat();
}

const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:';

function readSegments(data: number[], version: number): string {
  let pos = 0;
  const take = (n: number) => {
    let v = 0;
    for (let i = 0; i < n; i++, pos++) v = (v << 1) | ((data[pos >> 3]! >> (7 - (pos & 7))) & 1);
    return v;
  };
  const left = () => data.length * 8 - pos;
  const sizeClass = version < 10 ? 0 : version < 27 ? 1 : 2;
  const bytes: number[] = [];
  while (left() >= 4) {
    const mode = take(4);
    if (mode === 0) break;
    if (mode === 1) {
      let count = take([10, 12, 14][sizeClass]!);
      for (; count >= 3; count -= 3) bytes.push(...Buffer.from(String(take(10)).padStart(3, '0')));
      if (count === 2) bytes.push(...Buffer.from(String(take(7)).padStart(2, '0')));
      if (count === 1) bytes.push(...Buffer.from(String(take(4))));
    } else if (mode === 2) {
      let count = take([9, 11, 13][sizeClass]!);
      for (; count >= 2; count -= 2) {
        const v = take(11);
        bytes.push(ALPHANUMERIC.charCodeAt(Math.floor(v / 45)), ALPHANUMERIC.charCodeAt(v % 45));
      }
      if (count === 1) bytes.push(ALPHANUMERIC.charCodeAt(take(6)));
    } else if (mode === 4) {
      const count = take([8, 16, 16][sizeClass]!);
      for (let i = 0; i < count; i++) bytes.push(take(8));
    } else throw new Error(`QR segment mode ${mode} is not read by the emulator`);
  }
  return Buffer.from(bytes).toString('utf8');
}
