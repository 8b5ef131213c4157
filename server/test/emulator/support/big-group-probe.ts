/**
 * The bench row of the first send to a 1,500-member group (bench/src/baileys.ts runs this in its
 * own process): one JSON line with the relay time, the time until every member decrypted it, and
 * the key fetches.
 */
import { WaEmulator } from '@wa/emulator';
import { firstSendToBigGroup } from './big-group-run.ts';

const MEMBERS = Number(process.env.MEMBERS ?? 1500);
const emulator = await WaEmulator.start();
const r = await firstSendToBigGroup(emulator, MEMBERS, { own: '919800015000', raceMs: 60_000 });
await r.transport.close();
await emulator.stop();
const { transport: _, ...figures } = r;
console.log(`BENCH ${JSON.stringify({ members: MEMBERS, ...figures })}`);
process.exit(0);
