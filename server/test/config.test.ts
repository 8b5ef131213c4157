import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('config', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      waProvider: 'baileys',
      adminUsername: 'admin',
      adminPassword: undefined,
      signupEnabled: true,
      defaultCountryCode: '91',
      sendDelayMinMs: 3000,
      sendDelayMaxMs: 8000,
      sessionWaitMs: 600_000,
      databaseUrl: undefined,
      logLevel: 'info',
    });
    expect(c.dataDir).toBe(path.resolve('./data'));
  });

  it.each([
    ['PORT', 'abc', 'Invalid PORT="abc": expected a whole number from 0 to 65535'],
    ['PORT', '70000', 'Invalid PORT="70000": expected a whole number from 0 to 65535'],
    ['WA_PROVIDER', 'twilio', 'Invalid WA_PROVIDER="twilio": expected baileys or simulator'],
    ['SIGNUP_ENABLED', 'maybe', 'Invalid SIGNUP_ENABLED="maybe": expected true or false'],
    [
      'DATABASE_URL',
      'mysql://x',
      'Invalid DATABASE_URL="mysql://x": expected a postgres:// or postgresql:// URL',
    ],
  ])('refuses %s=%s with one line naming it', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it('refuses a minimum pause above the maximum', () => {
    expect(() => loadConfig({ SEND_DELAY_MIN_MS: '9000', SEND_DELAY_MAX_MS: '100' })).toThrow(
      /SEND_DELAY_MIN_MS/,
    );
  });

  it('stops the real start with the message and exit code 1', () => {
    const main = path.resolve(import.meta.dirname, '../src/main.ts');
    const run = spawnSync(process.execPath, ['--import', 'tsx', main], {
      env: { ...process.env, PORT: 'not-a-port', WA_PROVIDER: 'simulator' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(
      'Configuration error: Invalid PORT="not-a-port": expected a whole number from 0 to 65535',
    );
  });
});
