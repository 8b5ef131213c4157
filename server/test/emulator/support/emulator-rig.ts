import fs from 'node:fs';
import { WaEmulator } from '@wa/emulator';
import { afterAll, beforeAll } from 'vitest';
import { late } from '../../helpers.ts';
import { Product } from './product.ts';

/**
 * For a describe block: the emulator, its world set up by `world`, and the product started
 * against it (with `env` added to its environment); stopped after the block. `trace` holds every frame both ways (EMULATOR_TRACE=<file>
 * writes it there after the block, for reading what the socket did). What this returns reads the
 * emulator and the product of the time.
 */
export function productOnEmulator(world: (w: WaEmulator['world']) => void, env: Record<string, string> = {}) {
  let emulator: WaEmulator | undefined;
  let product: Product | undefined;
  const trace: string[] = [];
  beforeAll(async () => {
    emulator = await WaEmulator.start({ log: (l) => trace.push(`${new Date().toISOString()} ${l}`) });
    world(emulator.world);
    product = new Product(emulator, env);
    await product.start();
  });
  afterAll(async () => {
    if (process.env.EMULATOR_TRACE) fs.writeFileSync(process.env.EMULATOR_TRACE, trace.join('\n'));
    await product?.dispose();
    await emulator?.stop();
  });
  return { emulator: late(() => emulator!), product: late(() => product!), trace };
}
