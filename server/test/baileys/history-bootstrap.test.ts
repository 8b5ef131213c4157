import { Readable } from 'node:stream';
import { inflateSync } from 'node:zlib';
import { processHistoryMessage, proto } from 'baileys';
import { describe, expect, it } from 'vitest';
import { readBootstrap } from '../../src/transport/baileys/history.ts';
import { bootstrapHistory } from '../emulator/support/history-fixture.ts';

/** A stream of `bytes` in chunks of `size` (a download arrives in pieces that cut fields anywhere). */
const chunked = (bytes: Buffer, size: number) =>
  Readable.from(
    Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) =>
      bytes.subarray(i * size, (i + 1) * size),
    ),
  );

describe('the INITIAL_BOOTSTRAP read in pieces', () => {
  it('stores the same LID ↔ number mappings as rc14’s processHistoryMessage, one conversation held at a time', async () => {
    const { sync, deflated } = bootstrapHistory(1200, 5);
    const inflated = inflateSync(deflated);
    const stored: { lid: string; pn: string }[] = [];
    const batches: number[] = [];
    const read = await readBootstrap(chunked(inflated, 777), async (pairs) => {
      batches.push(pairs.length);
      stored.push(...pairs);
    });
    const rc14 = processHistoryMessage(proto.HistorySync.decode(proto.HistorySync.encode(sync).finish()));
    const key = (p: { lid: string; pn: string }) => `${p.lid}=${p.pn}`;
    expect(stored.map(key).sort()).toEqual(rc14.lidPnMappings.map(key).sort());
    expect(read).toMatchObject({ conversations: 1200, mappings: 1201 });
    expect(batches).toEqual([500, 500, 201]);
    // The largest piece held is one conversation, not the history.
    expect(read.largestPieceBytes).toBeLessThan(inflated.length / 500);
  });
});
