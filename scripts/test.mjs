// `npm test`: every test suite in turn — server (PGlite, and PostgreSQL when TEST_DATABASE_URL
// is set), web unit tests, the product on the real Baileys socket against the WhatsApp emulator
// (wa-emulator/), then the browser suite when Chromium is found (loudly skipped
// otherwise, and a failure when REQUIRE_BROWSER=1).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const requireBrowser = process.env.REQUIRE_BROWSER === '1';
const suites = [
  ['server', ['npm', 'test', '-w', 'server']],
  ['web', ['npm', 'test', '-w', 'web']],
  ['emulator', ['npm', 'run', 'test:emulator']],
];
const hasBrowser = fs.existsSync(chromium);
if (hasBrowser) suites.push(['browser', ['npm', 'test', '-w', 'e2e']]);

if (!process.env.TEST_DATABASE_URL) {
  console.log(
    '\nNote: TEST_DATABASE_URL is not set, so server tests run on PGlite only (not on PostgreSQL).\n',
  );
}

const results = [];
for (const [name, [cmd, ...args]] of suites) {
  console.log(`\n=== ${name} tests: ${[cmd, ...args].join(' ')}\n`);
  const run = spawnSync(cmd, args, { stdio: 'inherit' });
  results.push([name, run.status === 0]);
}

if (!hasBrowser) {
  const line = '*'.repeat(78);
  console.log(`\n${line}\n*** BROWSER TESTS SKIPPED: no Chromium at ${chromium}.`);
  console.log('*** Install it with: apt-get install chromium (or set CHROMIUM_PATH).');
  console.log(`${line}\n`);
  if (requireBrowser) results.push(['browser (required, Chromium missing)', false]);
}

const failed = results.filter(([, ok]) => !ok).map(([name]) => name);
console.log(`\nsuites: ${results.length - failed.length} passed, ${failed.length} failed`);
if (failed.length) {
  console.log(`failed: ${failed.join(', ')}`);
  process.exit(1);
}
