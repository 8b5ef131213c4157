import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The server as the tests start it in a process of its own: built once per run by the suite's
 * globalSetup (`buildServerOnce`) with the project's own build (scripts/build.mjs, what
 * `npm run build` makes and `npm start` runs), then `node --enable-source-maps <build>/main.js`
 * per start. Through tsx each start compiled the sources again: about 1.5 s more CPU a start,
 * the suite makes some twenty of them.
 */

const serverDir = path.resolve(import.meta.dirname, '..');

/**
 * For a globalSetup: builds the server into server/.tmp/test-build-<pid> (a run's own, so two
 * runs and a developer's server/dist never meet) and names it in SERVER_BUILD_DIR for the test
 * workers. Resolves with the teardown that removes it; the build runs in a process of its own,
 * beside what the setup does meanwhile.
 */
export async function buildServerOnce(): Promise<() => void> {
  const outdir = path.join('.tmp', `test-build-${process.pid}`);
  const child = spawn(process.execPath, ['scripts/build.mjs', outdir], { cwd: serverDir });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`the server build failed:\n${out}`);
  const dir = path.join(serverDir, outdir);
  process.env.SERVER_BUILD_DIR = dir;
  return () => fs.rmSync(dir, { recursive: true, force: true });
}

/** `node` arguments that run the built `main` (the server) or `cli` (the operator commands). */
export function serverArgs(entry: 'main' | 'cli'): string[] {
  const dir = process.env.SERVER_BUILD_DIR;
  if (!dir)
    throw new Error(
      'SERVER_BUILD_DIR is not set: run the tests with their vitest config (its globalSetup builds the server)',
    );
  return ['--enable-source-maps', path.join(dir, `${entry}.js`)];
}
