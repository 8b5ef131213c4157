/**
 * The bench row of key fetches after a restart (bench/src/baileys.ts runs this in its own
 * process): one JSON line with the device queries and key fetches of a send to `CONTACTS` contacts
 * before the product restarts and of the same send after it.
 */
import { WaEmulator } from '@wa/emulator';
import { sendsBeforeAndAfterRestart } from './restart-sends-run.ts';

const CONTACTS = Number(process.env.CONTACTS ?? 1000);
const emulator = await WaEmulator.start();
const contacts = Array.from({ length: CONTACTS }, (_, i) => `91981600${String(i).padStart(4, '0')}`);
const r = await sendsBeforeAndAfterRestart(emulator, { own: '919800016000', contacts });
for (const t of r.transports) await t.close();
await emulator.stop();
console.log(`BENCH ${JSON.stringify({ contacts: CONTACTS, before: r.before, after: r.after })}`);
process.exit(0);
