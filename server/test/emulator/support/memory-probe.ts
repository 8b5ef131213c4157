/**
 * Memory per linked real socket (the bench row of bench/src/baileys.ts runs `node --expose-gc
 * --import tsx test/emulator/memory-probe.ts`): N accounts linked through the emulator in one
 * process, heap and RSS after a forced GC, idle and after one send each. The emulator runs in the
 * same process: its side of each account (keys, connection) is counted too, so this is an upper
 * bound of the product's own cost.
 */
import { WaEmulator } from '@wa/emulator';
import { waitFor } from '../../wait.ts';
import { linkedTransport } from './transport-rig.ts';

const N = Number(process.env.ACCOUNTS ?? 50);
const gc = (globalThis as { gc?: () => void }).gc;
const mem = async () => {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 200));
  }
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
};
const mb = (n: number) => (n / 1024 / 1024).toFixed(1);

const emulator = await WaEmulator.start();
const phones = Array.from({ length: N }, (_, i) => `9198200${String(i).padStart(5, '0')}`);
const contacts = phones.map((p) => `9198300${p.slice(-5)}`);
for (const c of contacts) emulator.world.account(c);
for (const p of phones) emulator.world.account(p);
const base = await mem();
const rigs = [];
for (const p of phones) rigs.push(await linkedTransport(emulator, p, { loginSpacingMs: 0 }));
await new Promise((r) => setTimeout(r, 5000));
const idle = await mem();
await Promise.all(
  rigs.map(({ transport }, i) =>
    transport.send(`${contacts[i]}@s.whatsapp.net`, { kind: 'text', text: 'Hello' }),
  ),
);
await waitFor(
  'every contact',
  async () => contacts.every((c) => emulator.world.account(c).inbox.length > 0),
  120_000,
  200,
);
await new Promise((r) => setTimeout(r, 3000));
const sent = await mem();
console.log(
  `${N} linked sockets: idle heap +${mb((idle.heap - base.heap) / N)} MB, rss +${mb((idle.rss - base.rss) / N)} MB an account; ` +
    `after a send each heap +${mb((sent.heap - base.heap) / N)} MB, rss +${mb((sent.rss - base.rss) / N)} MB an account`,
);
const perAccount = (n: number) => Number((n / N / 1024 / 1024).toFixed(2));
console.log(
  `BENCH ${JSON.stringify({
    accounts: N,
    idleHeapMb: perAccount(idle.heap - base.heap),
    idleRssMb: perAccount(idle.rss - base.rss),
    sentHeapMb: perAccount(sent.heap - base.heap),
    sentRssMb: perAccount(sent.rss - base.rss),
  })}`,
);
for (const { transport } of rigs) await transport.close();
await emulator.stop();
process.exit(0);
