/**
 * The Baileys rows of `npm run bench`: the real rc14 socket through the product's
 * transport against the wire emulator (wa-emulator/), each probe in its own Node process with
 * --expose-gc (server/test/emulator/support/*-probe.ts), no database.
 *  - memory per linked socket: 50 accounts in one process, idle and after one send each;
 *  - the first send to a 1,500-member group: relay time, all members decrypted, key fetches;
 *  - a send to 1,000 known contacts after a restart: the device queries and key fetches it asks;
 *  - one INITIAL_BOOTSTRAP history: the heap it adds, read as rc14 does and as the transport does.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { SMOKE, size } from './setup.ts';

const SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../server');

/** Runs one probe and returns the figures it prints (`BENCH {json}`). */
function probe<T = Record<string, number>>(file: string, env: Record<string, string> = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', `test/emulator/support/${file}`],
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

/** What an account asked the server for in one round of sends (server/test/emulator/support/restart-sends-run.ts). */
type Traffic = {
  deviceQueries: number;
  usersAsked: number;
  keyFetches: number;
  keysAsked: number;
  ms: number;
};

export type BaileysRow = { measure: string; goal: string; value: string };

export async function baileysRows(): Promise<BaileysRow[]> {
  const accounts = Number(process.env.BENCH_BAILEYS_ACCOUNTS ?? size(50, 3));
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
  const members = size(1500, 60);
  await attempt(
    `first send to a ${members.toLocaleString('en-IN')}-member group`,
    "product's part < 10 s",
    async () => {
      const g = await probe('big-group-probe.ts', { MEMBERS: String(members) });
      const s = (ms: number | undefined) => `${((ms ?? 0) / 1000).toFixed(1)} s`;
      return (
        `product ${s(g.productMs)} (relay on the wire ${s(g.onWireMs)}, send returned ${s(g.relayMs)}, ` +
        `less the emulator's answers ${s(g.emulatorAnswersMs)}); emulator decrypting ${s(g.emulatorDecryptMs)}; ` +
        `all decrypted ${s(g.deliveredMs)}; ${g.keyFetches} key fetches for ${g.keysAsked} devices`
      );
    },
  );
  const contacts = size(1000, 20);
  await attempt(
    `device queries and key fetches for ${contacts.toLocaleString('en-IN')} known contacts after a restart`,
    `under 1 % of them (≤ ${Math.floor(contacts / 100)})`,
    async () => {
      const { before, after } = await probe<Record<'before' | 'after', Traffic>>('restart-keys-probe.ts', {
        CONTACTS: String(contacts),
      });
      const asked = (t: Traffic) =>
        `${t.deviceQueries} device queries for ${t.usersAsked} users, ${t.keyFetches} key fetches for ` +
        `${t.keysAsked} users, all received in ${(t.ms / 1000).toFixed(1)} s`;
      return `after the restart: ${asked(after)}; before it: ${asked(before)}`;
    },
  );
  await attempt('one INITIAL_BOOTSTRAP history, live memory at its peak', 'bounded by one chat', async () => {
    const h = await probe('history-probe.ts', SMOKE ? { CHATS: '100', MESSAGES: '5' } : {});
    return (
      `${h.chats} chats × ${h.messagesEach} messages (${h.compressedMb} MB compressed, ${h.inflatedMb} MB inflated): ` +
      `rc14 whole +${h.rc14PeakHeapMb} MB, in pieces +${h.oursPeakHeapMb} MB`
    );
  });
  return rows;
}
