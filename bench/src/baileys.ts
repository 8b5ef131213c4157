/**
 * The Baileys rows of `npm run bench`: the real rc14 socket through the product's
 * transport against the wire emulator (wa-emulator/), each probe in its own Node process with
 * --expose-gc (server/test/emulator/*-probe.ts), no database.
 *  - memory per linked socket: 50 accounts in one process, idle and after one send each;
 *  - the first send to a 1,500-member group: relay time, all members decrypted, key fetches;
 *  - one INITIAL_BOOTSTRAP history: the heap it adds, read as rc14 does and as the transport does.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../server');

/** Runs one probe and returns the figures it prints (`BENCH {json}`). */
function probe(file: string, env: Record<string, string> = {}): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', `test/emulator/${file}`],
      { cwd: SERVER, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024, timeout: 900_000 },
      (err, stdout, stderr) => {
        // The probe's figures: its line that starts with BENCH (loggers may write after it).
        const last =
          stdout
            .split('\n')
            .filter((l) => l.startsWith('BENCH '))
            .at(-1)
            ?.slice(6) ?? '';
        if (err) reject(new Error(`${file}: ${err.message.split('\n')[0]} ${stderr.slice(-300)}`));
        else {
          try {
            resolve(JSON.parse(last));
          } catch {
            reject(new Error(`${file}: no figures (${last.slice(0, 200)})`));
          }
        }
      },
    );
  });
}

export type BaileysRow = { measure: string; goal: string; value: string };

export async function baileysRows(): Promise<BaileysRow[]> {
  const accounts = Number(process.env.BENCH_BAILEYS_ACCOUNTS ?? 50);
  const rows: BaileysRow[] = [];
  const attempt = async (measure: string, goal: string, run: () => Promise<string>) => {
    const started = Date.now();
    let value: string;
    try {
      value = await run();
    } catch (err) {
      value = `error: ${(err as Error).message.split('\n')[0]}`;
    }
    rows.push({ measure, goal, value: `${value} (${((Date.now() - started) / 1000).toFixed(0)} s)` });
  };
  await attempt(
    `memory per linked real socket, ${accounts} accounts in one process`,
    '≤ 10 MB an account',
    async () => {
      const m = await probe('memory-probe.ts', { ACCOUNTS: String(accounts) });
      return (
        `idle: heap ${m.idleHeapMb} MB, RSS ${m.idleRssMb} MB; after a send each: heap ${m.sentHeapMb} MB, ` +
        `RSS ${m.sentRssMb} MB an account (emulator's side included)`
      );
    },
  );
  await attempt('first send to a 1,500-member group', '', async () => {
    const g = await probe('big-group-probe.ts');
    return (
      `relay ${(g.relayMs! / 1000).toFixed(1)} s, all decrypted ${(g.deliveredMs! / 1000).toFixed(1)} s, ` +
      `${g.keyFetches} key fetches for ${g.keysAsked} devices`
    );
  });
  await attempt('one INITIAL_BOOTSTRAP history, live memory at its peak', 'bounded by one chat', async () => {
    const h = await probe('history-probe.ts');
    return (
      `${h.chats} chats × ${h.messagesEach} messages (${h.compressedMb} MB compressed, ${h.inflatedMb} MB inflated): ` +
      `rc14 whole +${h.rc14PeakHeapMb} MB, in pieces +${h.oursPeakHeapMb} MB`
    );
  });
  return rows;
}
