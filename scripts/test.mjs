// `npm test`: every test suite — server (PGlite, and PostgreSQL when TEST_DATABASE_URL is set),
// web unit tests, then the browser suite when Chromium is found (loudly skipped otherwise, and a
// failure when REQUIRE_BROWSER=1), then the product on the real Baileys socket against the WhatsApp
// emulator (wa-emulator/).
import { spawn } from 'node:child_process';
import fs from 'node:fs';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const requireBrowser = process.env.REQUIRE_BROWSER === '1';
const suites = [
  ['server', ['npm', 'test', '-w', 'server']],
  ['web', ['npm', 'test', '-w', 'web']],
];
const hasBrowser = fs.existsSync(chromium);
const emulator = ['emulator', ['npm', 'run', 'test:emulator']];
if (hasBrowser) suites.push(['browser', ['npm', 'test', '-w', 'e2e']]);

if (!process.env.TEST_DATABASE_URL) {
  console.log(
    '\nNote: TEST_DATABASE_URL is not set, so server tests run on PGlite only (not on PostgreSQL).\n',
  );
}

/** Runs a suite with its output on this terminal; resolves with whether it passed. */
function inForeground([name, [cmd, ...args]]) {
  console.log(`\n=== ${name} tests: ${[cmd, ...args].join(' ')}\n`);
  const child = spawn(cmd, args, { stdio: ['inherit', 'pipe', 'pipe'] });
  const seen = failureLines(name);
  child.stdout.on('data', (d) => {
    process.stdout.write(d);
    seen.add(d);
  });
  child.stderr.on('data', (d) => {
    process.stderr.write(d);
    seen.add(d);
  });
  return new Promise((resolve) => child.on('close', (code) => resolve([name, code === 0])));
}

/**
 * The lines that name a failing test or file (vitest's `FAIL` and `×`, Playwright's `✘`), kept
 * per suite and printed again at the very end: CI keeps only the tail of a 40-minute log, and a
 * suite's failure scrolled out of it otherwise (stop 32 could not say which server test failed).
 */
const failures = [];
function failureLines(suite) {
  let partial = '';
  return {
    add(chunk) {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const raw of lines) {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: strips the reporters' colours
        const line = raw.replace(/\x1b\[[0-9;]*m/g, '').trim();
        if (/^(FAIL\b|×|✘|\d+\) )/.test(line) && failures.length < 60) failures.push(`${suite}: ${line}`);
      }
    },
  };
}

// One suite after another. The emulator suite ran beside the browser suite until stop 33: its
// Baileys crypto (a first send to a 1,500-member group encrypts for minutes) kept the 2 cores at
// load 9-10 under the browser's two workers, and five browser tests ran out of time (a page's
// axe pass, a 1,000,000-line CSV's 400 ms budget). Alone each suite keeps to its timings; CI
// takes the emulator's 8 minutes more.
const results = [];
for (const suite of suites) results.push(await inForeground(suite));
results.push(await inForeground(emulator));

if (!hasBrowser) {
  const line = '*'.repeat(78);
  console.log(`\n${line}\n*** BROWSER TESTS SKIPPED: no Chromium at ${chromium}.`);
  console.log('*** Install it with: apt-get install chromium (or set CHROMIUM_PATH).');
  console.log(`${line}\n`);
  if (requireBrowser) results.push(['browser (required, Chromium missing)', false]);
}

const failed = results.filter(([, ok]) => !ok).map(([name]) => name);
if (failures.length) console.log(`\nfailing tests, as the suites named them:\n${failures.join('\n')}`);
console.log(`\nsuites: ${results.length - failed.length} passed, ${failed.length} failed`);
if (failed.length) {
  console.log(`failed: ${failed.join(', ')}`);
  process.exit(1);
}
