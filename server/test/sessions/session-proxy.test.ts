import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { createInstance } from '../fakes/sessions.ts';
import { bearer, buildUser, DB_KINDS, loginToken, type TestApp, testAppFor } from '../helpers.ts';

const INVALID = 'Give the proxy as socks5://user:password@host:port or http://user:password@host:port';

describe.each(DB_KINDS)('a proxy per account on %s', (kind) => {
  const t = testAppFor(kind, { SECRET_KEY: 'cd'.repeat(32) });
  const bare = testAppFor(kind);

  const put = (app: TestApp, token: string, sessionId: string, url: string | null) =>
    app.app.inject({
      method: 'PUT',
      url: `/api/session/${sessionId}/proxy`,
      headers: bearer(token),
      payload: { url },
    });

  it('refuses a bad proxy with the form to use and stores nothing', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const sessionId = await createInstance(t, token, { phoneNumber: '+91 98765 43301', sessionName: 'Shop' });
    for (const url of [
      'ftp://127.0.0.1:21',
      'socks5://127.0.0.1',
      'socks5://127.0.0.1:70000',
      'http://proxy.example:3128/path',
      'http://proxy.example:3128?x=1',
      'not a url',
    ]) {
      const res = await put(t, token, sessionId, url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().message).toBe(INVALID);
    }
    const [row] = await queryRows<{ proxy: string | null }>(
      t.db,
      sql`SELECT proxy FROM wa_sessions WHERE session_id = ${sessionId}`,
    );
    expect(row!.proxy).toBeNull();
  });

  it('stores it encrypted, shows it without the password, audits it without the password, removes it', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const sessionId = await createInstance(t, token, { phoneNumber: '+91 98765 43302', sessionName: 'Shop' });
    const res = await put(t, token, sessionId, 'socks5://shop:p%40ss-word@203.0.113.7:1080');
    expect(res.statusCode, res.body).toBe(200);
    const shown = {
      scheme: 'socks5',
      host: '203.0.113.7',
      port: 1080,
      username: 'shop',
      hasPassword: true,
    };
    expect(res.json().proxy).toEqual(shown);
    const got = await t.app.inject({
      method: 'GET',
      url: `/api/session/${sessionId}/proxy`,
      headers: bearer(token),
    });
    expect(got.json().proxy).toEqual(shown);
    const [row] = await queryRows<{ proxy: string }>(
      t.db,
      sql`SELECT proxy FROM wa_sessions WHERE session_id = ${sessionId}`,
    );
    expect(row!.proxy).toMatch(/^enc/);
    expect(row!.proxy).not.toContain('203.0.113.7');
    const list = await t.app.inject({ method: 'GET', url: '/api/sessions', headers: bearer(token) });
    expect(list.json().sessions[0].hasProxy).toBe(true);
    const audit = await queryRows<{ details: Record<string, unknown> }>(
      t.db,
      sql`SELECT details FROM audit_log WHERE action = 'session.proxy' AND target_user_id = ${user.id}`,
    );
    expect(audit.map((a) => a.details)).toEqual([
      { sessionId, set: true, scheme: 'socks5', host: '203.0.113.7', port: 1080 },
    ]);
    expect(JSON.stringify(audit)).not.toContain('p@ss');
    // Another user's session: 404, as every session look-up.
    const other = await buildUser(t);
    const otherToken = await loginToken(t.app, other.username);
    expect((await put(t, otherToken, sessionId, null)).statusCode).toBe(404);
    const removed = await put(t, token, sessionId, null);
    expect(removed.json()).toMatchObject({ proxy: null, message: 'Proxy removed' });
  });

  it('a test of a proxy that refuses says so', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const sessionId = await createInstance(t, token, { phoneNumber: '+91 98765 43303', sessionName: 'Shop' });
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/session/${sessionId}/proxy/test`,
      headers: bearer(token),
      payload: { url: 'socks5://127.0.0.1:1' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: false, exitAddress: null });
    expect(res.json().message).toMatch(/^Proxy refused the connection \(127\.0\.0\.1:1\)/);
  });

  it('without SECRET_KEY a proxy is refused, never stored in plain text', async () => {
    const user = await buildUser(bare);
    const token = await loginToken(bare.app, user.username);
    const sessionId = await createInstance(bare, token, {
      phoneNumber: '+91 98765 43304',
      sessionName: 'Shop',
    });
    const res = await put(bare, token, sessionId, 'socks5://127.0.0.1:1080');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('A proxy needs SECRET_KEY: it is stored encrypted');
  });
});
