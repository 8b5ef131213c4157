import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { ConfigError } from '../../src/errors.ts';

describe('CLOUD_API_BASE_URL', () => {
  it("defaults to Meta's Graph API at v24.0", () => {
    expect(loadConfig({}).cloudApiBaseUrl).toBe('https://graph.facebook.com/v24.0');
  });

  it("accepts Meta's Graph API at another version, or a loopback address (trailing slash dropped)", () => {
    expect(loadConfig({ CLOUD_API_BASE_URL: 'https://graph.facebook.com/v24.0/' }).cloudApiBaseUrl).toBe(
      'https://graph.facebook.com/v24.0',
    );
    expect(loadConfig({ CLOUD_API_BASE_URL: 'http://127.0.0.1:4567/v23.0' }).cloudApiBaseUrl).toBe(
      'http://127.0.0.1:4567/v23.0',
    );
    expect(loadConfig({ CLOUD_API_BASE_URL: 'http://[::1]:4567/v23.0' }).cloudApiBaseUrl).toBe(
      'http://[::1]:4567/v23.0',
    );
    expect(loadConfig({ CLOUD_API_BASE_URL: 'http://localhost:4567' }).cloudApiBaseUrl).toBe(
      'http://localhost:4567',
    );
  });

  it.each([
    'https://evil.example/v23.0',
    'http://graph.facebook.com/v23.0',
    'https://graph.facebook.com/v23.0/extra',
    'https://graph.facebook.com/v23.0?access_token=x',
    'http://10.0.0.5:4567/v23.0',
    'ftp://127.0.0.1/v23.0',
    'not a url',
  ])('refuses %s with one line naming the variable', (value) => {
    expect(() => loadConfig({ CLOUD_API_BASE_URL: value })).toThrow(ConfigError);
    expect(() => loadConfig({ CLOUD_API_BASE_URL: value })).toThrow(
      `Invalid CLOUD_API_BASE_URL=${JSON.stringify(value)}: expected https://graph.facebook.com/v24.0 (any version) or an http:// URL on a loopback address (a fake Graph API)`,
    );
  });
});
