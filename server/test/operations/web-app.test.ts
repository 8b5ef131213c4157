import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers.ts';

/** The built web app as the server hands it to browsers. */
describe('serving the web app', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'web-dist-'));
    fs.mkdirSync(path.join(dir, 'assets'));
    fs.writeFileSync(
      path.join(dir, 'index.html'),
      '<script type="module" src="/assets/index-Ab12Cd34.js"></script>',
    );
    fs.writeFileSync(path.join(dir, 'assets', 'index-Ab12Cd34.js'), 'console.log(1)');
    fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg/>');
    t = await createTestApp('pglite', { WEB_DIST_DIR: dir });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lets browsers keep the hashed files for a year and asks for index.html every time', async () => {
    const asset = await t.app.inject({ method: 'GET', url: '/assets/index-Ab12Cd34.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    for (const url of ['/', '/index.html', '/favicon.svg']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=0');
    }
    // A page's address that is no file (a reload of a deep link) gets index.html, not cached for long.
    const page = await t.app.inject({ method: 'GET', url: '/reports' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('/assets/index-Ab12Cd34.js');
    expect(page.headers['cache-control']).not.toContain('immutable');
  });
});
