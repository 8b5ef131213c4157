import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { ConfigError } from '../../src/errors.ts';
import { serverArgs } from '../server-build.ts';

describe('config', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      waProvider: 'baileys',
      adminUsername: 'admin',
      adminPassword: undefined,
      signupEnabled: false,
      loginRateLimit: 10,
      loginIpFailureLimit: 50,
      trustProxy: false,
      secretKey: undefined,
      requireAdmin2fa: false,
      defaultCountryCode: '91',
      sendDelayMinMs: 3000,
      sendDelayMaxMs: 8000,
      accountWaitMs: 600_000,
      failoverAfterMs: 120_000,
      rateLimitPauseMs: 60_000,
      healthCheckMs: 60_000,
      healthMarginMs: 60_000,
      databaseUrl: undefined,
      logLevel: 'info',
      pgliteSharedBuffers: '32MB',
    });
    expect(c.dataDir).toBe(path.resolve('./data'));
  });

  it.each([
    ['PORT', 'abc', 'Invalid PORT="abc": expected a whole number from 0 to 65535'],
    ['PORT', '70000', 'Invalid PORT="70000": expected a whole number from 0 to 65535'],
    ['WA_PROVIDER', 'twilio', 'Invalid WA_PROVIDER="twilio": expected baileys or simulator'],
    ['SIGNUP_ENABLED', 'maybe', 'Invalid SIGNUP_ENABLED="maybe": expected true or false'],
    [
      'WA_VERSION',
      '2.2413.1',
      'Invalid WA_VERSION="2.2413.1": expected a WhatsApp Web version such as 2.3000.1043857760',
    ],
    [
      'PGLITE_SHARED_BUFFERS',
      '32',
      'Invalid PGLITE_SHARED_BUFFERS="32": expected a size such as 32MB (kB, MB or GB)',
    ],
    [
      'HEALTH_MARGIN_MS',
      '500',
      'Invalid HEALTH_MARGIN_MS="500": expected a whole number from 1000 to 3600000',
    ],
    [
      'DATABASE_URL',
      'mysql://x',
      'Invalid DATABASE_URL="mysql://x": expected a postgres:// or postgresql:// URL',
    ],
  ])('refuses %s=%s with one line naming it', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it('WA_WS_URL is WhatsApp or a loopback address; the emulator root key only goes with a loopback one', () => {
    const key = 'ab'.repeat(32);
    expect(() => loadConfig({ WA_WS_URL: 'wss://evil.example/ws/chat' })).toThrow(
      'Invalid WA_WS_URL="wss://evil.example/ws/chat": expected wss://web.whatsapp.com/ws/chat or a ws:// URL on a loopback address (an emulator)',
    );
    expect(() => loadConfig({ WA_WS_URL: 'ws://10.0.0.5:3141/ws/chat' })).toThrow(ConfigError);
    expect(() => loadConfig({ WA_EMULATOR_ROOT_KEY: key })).toThrow(
      `Invalid WA_EMULATOR_ROOT_KEY="${key}": expected only with a WA_WS_URL on a loopback address`,
    );
    expect(() =>
      loadConfig({ WA_WS_URL: 'wss://web.whatsapp.com/ws/chat', WA_EMULATOR_ROOT_KEY: key }),
    ).toThrow(ConfigError);
    expect(() =>
      loadConfig({ WA_WS_URL: 'ws://127.0.0.1:3141/ws/chat', WA_EMULATOR_ROOT_KEY: 'xyz' }),
    ).toThrow(
      'Invalid WA_EMULATOR_ROOT_KEY="xyz": expected an emulator\'s root public key: 64 hex digits, optionally :serial',
    );
    const c = loadConfig({ WA_WS_URL: 'ws://[::1]:3141/ws/chat', WA_EMULATOR_ROOT_KEY: `${key}:7` });
    expect(c.waWsUrl).toBe('ws://[::1]:3141/ws/chat');
    expect(c.waEmulatorRootKey).toEqual({ publicKey: Buffer.from(key, 'hex'), serial: 7 });
    expect(loadConfig({ WA_WS_URL: 'ws://localhost:1/ws/chat' }).waEmulatorRootKey).toBeUndefined();
    expect(loadConfig({}).waWsUrl).toBeUndefined();
  });

  it('WA_VERSION 2.3000.x becomes the version Baileys announces; unset it is looked up', () => {
    expect(loadConfig({ WA_VERSION: '2.3000.1023223821' }).waVersion).toEqual([2, 3000, 1023223821]);
    expect(loadConfig({}).waVersion).toBeUndefined();
  });

  it.each([
    ['false', false],
    ['off', false],
    ['true', true],
    ['1', 1],
    ['2', 2],
    ['10.0.0.0/8, 127.0.0.1', ['10.0.0.0/8', '127.0.0.1']],
    ['fd00::/8', ['fd00::/8']],
  ])('reads TRUST_PROXY=%s', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it.each(['proxy', '10.0.0.0/33', '300.1.1.1', '10.0.0.0/8,nonsense'])('refuses TRUST_PROXY=%s', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(
      `Invalid TRUST_PROXY=${JSON.stringify(value)}: expected false, true, a hop count, or comma-separated addresses or CIDR ranges`,
    );
  });

  it('reads SECRET_KEY as 32 bytes in hex or base64 and refuses anything else', () => {
    const hex = 'ab'.repeat(32);
    expect(loadConfig({ SECRET_KEY: hex }).secretKey).toEqual(Buffer.from(hex, 'hex'));
    const b64 = Buffer.alloc(32, 7).toString('base64');
    expect(loadConfig({ SECRET_KEY: b64 }).secretKey).toEqual(Buffer.alloc(32, 7));
    expect(() => loadConfig({ SECRET_KEY: 'short' })).toThrow(
      /^Invalid SECRET_KEY="short": expected 32 bytes/,
    );
  });

  it('refuses a minimum pause above the maximum', () => {
    expect(() => loadConfig({ SEND_DELAY_MIN_MS: '9000', SEND_DELAY_MAX_MS: '100' })).toThrow(
      /SEND_DELAY_MIN_MS/,
    );
  });

  it('stops the real start with the message and exit code 1', () => {
    const run = spawnSync(process.execPath, serverArgs('main'), {
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
