/**
 * The memory of one INITIAL_BOOTSTRAP history (bench/src/baileys.ts runs `node
 * --expose-gc --import tsx test/emulator/history-probe.ts`): the live memory it adds (heap and
 * Buffers, after a full collection) at its peak, read
 * as rc14 reads it (Utils/history.js: inflated whole, HistorySync.decode, processHistoryMessage)
 * and as the transport reads it (history.ts: the inflated stream one conversation at a time).
 * One JSON line.
 */
import { Readable } from 'node:stream';
import { createInflate, inflateSync } from 'node:zlib';
import { processHistoryMessage, proto } from 'baileys';
import { readBootstrap } from '../../../src/transport/baileys/history.ts';
import { bootstrapHistory } from './history-fixture.ts';

const CHATS = Number(process.env.CHATS ?? 5000);
const MESSAGES = Number(process.env.MESSAGES ?? 40);
const gc = (globalThis as { gc?: () => void }).gc;
/** Live memory: the heap and the Buffers outside it, after a full collection. */
const live = () => {
  gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const mb = (n: number) => Number((n / 1024 / 1024).toFixed(1));

let { deflated } = bootstrapHistory(CHATS, MESSAGES);
const compressed = deflated.length;
const inflatedBytes = inflateSync(deflated).length;
const base = live();

// rc14: the inflated buffer and every decoded conversation are live at once (until its event is
// emitted). In a function: a top-level block's values stay alive across the module's later awaits.
function rc14Read(): number {
  const inflated = inflateSync(deflated);
  const decoded = processHistoryMessage(proto.HistorySync.decode(inflated));
  const used = live() - base;
  if (decoded.chats.length !== CHATS || inflated.length !== inflatedBytes) throw new Error('rc14 read less');
  return used;
}
const rc14 = rc14Read();

// Ours: sampled at every batch of mappings it stores (500 conversations) and at the end.
live();
let ours = 0;
const sample = () => {
  ours = Math.max(ours, live() - base);
};
const read = await readBootstrap(Readable.from([deflated]).pipe(createInflate()), async () => sample());
sample();
deflated = Buffer.alloc(0);
console.log(
  `BENCH ${JSON.stringify({
    chats: CHATS,
    messagesEach: MESSAGES,
    compressedMb: mb(compressed),
    inflatedMb: mb(inflatedBytes),
    rc14PeakHeapMb: mb(rc14),
    oursPeakHeapMb: mb(ours),
    mappings: read.mappings,
  })}`,
);
process.exit(0);
