// `npm test`: every test suite — server (PGlite, and PostgreSQL when TEST_DATABASE_URL is set)
// with, beside it from the start, the product on the real Baileys socket against the WhatsApp
// emulator (wa-emulator/); then the browser suite when Chromium is found (loudly skipped otherwise,
// and a failure when REQUIRE_BROWSER=1) with the web unit tests beside it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const requireBrowser = process.env.REQUIRE_BROWSER === '1';
const server = ['server', ['npm', 'test', '-w', 'server']];
const web = ['web', ['npm', 'test', '-w', 'web']];
const hasBrowser = fs.existsSync(chromium);
const browser = ['browser', ['npm', 'test', '-w', 'e2e']];
const emulator = ['emulator', ['npm', 'run', 'test:emulator']];

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
 * suite's failure scrolled out of it otherwise.
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

/**
 * Runs a suite with its output kept, to be printed whole once the suite in the foreground has
 * ended (two logs interleaved line by line would name no test).
 */
function inBackground([name, [cmd, ...args]]) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const seen = failureLines(name);
  const kept = [`\n=== ${name} tests (ran beside the other suites): ${[cmd, ...args].join(' ')}\n\n`];
  const keep = (d) => {
    kept.push(d);
    seen.add(d);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return new Promise((resolve) => child.on('close', (code) => resolve({ name, ok: code === 0, kept })));
}

// The emulator suite (one file at a time) starts at once, beside the server suite; the browser
// suite follows the server suite in the foreground, with the web unit tests beside it (their 35 s
// fall while Playwright builds the web app and starts the server). Measured on this 2-core
// machine with other work on it (load 5-12): the server suite used 330 CPU-s in 407 s (its two
// workers wait on the database and timers; PostgreSQL's own processes not counted), the emulator
// 0.64 of a core (302 CPU-s in 474 s alone), the browser suite with two workers 651 CPU-s in
// 477 s (on chromium; a quarter less on its headless shell). Before, the emulator started with
// the browser suite, after the server suite, and at 13 min it was the longer of the two.
const beside = [inBackground(emulator)];
const results = [await inForeground(server)];
if (hasBrowser) {
  beside.push(inBackground(web));
  results.push(await inForeground(browser));
} else {
  results.push(await inForeground(web));
}
for (const { name, ok, kept } of await Promise.all(beside)) {
  for (const d of kept) process.stdout.write(d);
  results.push([name, ok]);
}

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
