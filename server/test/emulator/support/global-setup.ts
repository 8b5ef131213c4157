import { buildServerOnce } from '../../server-build.ts';

/** vitest globalSetup of the emulator suite: the server build its product processes run (product.ts). */
export default function setup(): Promise<() => void> {
  return buildServerOnce();
}
