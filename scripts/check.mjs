// `npm run check`: Biome (format and lint) and every workspace's type check, as many at once as
// the machine has cores. Run one after another they took 43 s on 2 cores (server 11 s, bench 10 s,
// web 9 s); each job's output is printed whole when it ends, and the run fails if any job fails.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const { workspaces } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
// The longest first, so that two lines of jobs end together.
const longest = ['server', 'bench', 'web'];
const rank = (w) => (longest.includes(w) ? longest.indexOf(w) : longest.length);
const jobs = [
  ...workspaces
    .filter((w) => JSON.parse(fs.readFileSync(path.join(root, w, 'package.json'), 'utf8')).scripts?.typecheck)
    .sort((a, b) => rank(a) - rank(b))
    .map((w) => [`typecheck ${w}`, ['npm', 'run', 'typecheck', '-w', w]]),
  ['biome', ['npx', 'biome', 'check', '.']],
];

/** Runs one job with its output kept; resolves with whether it passed. */
function run([name, [cmd, ...args]]) {
  const started = Date.now();
  const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = [];
  child.stdout.on('data', (d) => out.push(d));
  child.stderr.on('data', (d) => out.push(d));
  return new Promise((resolve) =>
    child.on('close', (code) => {
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      console.log(`\n=== ${name}: ${code === 0 ? 'passed' : 'FAILED'} (${secs} s)`);
      if (code !== 0) process.stdout.write(Buffer.concat(out));
      resolve(code === 0);
    }),
  );
}

const queue = [...jobs];
const results = [];
await Promise.all(
  Array.from({ length: Math.max(1, os.availableParallelism()) }, async () => {
    for (let job = queue.shift(); job; job = queue.shift()) results.push(await run(job));
  }),
);
if (results.includes(false)) {
  console.log('\nnpm run check failed: the output of each failing job is above.');
  process.exit(1);
}
