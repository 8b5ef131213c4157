import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.ts';
import { createAccount } from '../fakes/accounts.ts';
import { bearer, buildUser, DB_KINDS, loginToken, type TestApp, testAppFor } from '../helpers.ts';

const INVALID = 'Give the proxy as socks5://user:password@host:port or http://user:password@host:port';

describe.each(DB_KINDS)('a proxy per account on %s', (kind) => {
  const t = testAppFor(kind, { SECRET_KEY: 'cd'.repeat(32) });
  const bare = testAppFor(kind);
  const local = testAppFor(kind, { ALLOW_PRIVATE_PROXIES: 'true', SECRET_KEY: 'ef'.repeat(32) });

  const put = (app: TestApp, token: string, accountId: string, url: string | null) =>
    app.app.inject({
      method: 'PUT',
      url: `/api/session/${accountId}/proxy`,
      headers: bearer(token),
      payload: { url },
    });

  it('refuses a bad proxy with the form to use and stores nothing', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const accountId = await createAccount(t, token, { phoneNumber: '+91 98765 43301', sessionName: 'Shop' });
    for (const url of [
      'ftp://127.0.0.1:21',
      'socks5://127.0.0.1',
      'socks5://127.0.0.1:70000',
      'http://proxy.example:3128/path',
      'http://proxy.example:3128?x=1',
      'not a url',
    ]) {
      const res = await put(t, token, accountId, url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().message).toBe(INVALID);
    }
    const [row] = await queryRows<{ proxy: string | null }>(
      t.db,
      sql`SELECT proxy FROM wa_sessions WHERE session_id = ${accountId}`,
    );
    expect(row!.proxy).toBeNull();
  });

  it('stores it encrypted, shows it without the password, audits it without the password, removes it', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const accountId = await createAccount(t, token, { phoneNumber: '+91 98765 43302', sessionName: 'Shop' });
    const res = await put(t, token, accountId, 'socks5://shop:p%40ss-word@1.2.3.4:1080');
    expect(res.statusCode, res.body).toBe(200);
    const shown = {
      scheme: 'socks5',
      host: '1.2.3.4',
      port: 1080,
      username: 'shop',
      hasPassword: true,
    };
    expect(res.json().proxy).toEqual(shown);
    const got = await t.app.inject({
      method: 'GET',
      url: `/api/session/${accountId}/proxy`,
      headers: bearer(token),
    });
    expect(got.json().proxy).toEqual(shown);
    const [row] = await queryRows<{ proxy: string }>(
      t.db,
      sql`SELECT proxy FROM wa_sessions WHERE session_id = ${accountId}`,
    );
    expect(row!.proxy).toMatch(/^enc/);
    expect(row!.proxy).not.toContain('1.2.3.4');
    const list = await t.app.inject({ method: 'GET', url: '/api/sessions', headers: bearer(token) });
    expect(list.json().sessions[0].hasProxy).toBe(true);
    const audit = await queryRows<{ details: Record<string, unknown> }>(
      t.db,
      sql`SELECT details FROM audit_log WHERE action = 'session.proxy' AND target_user_id = ${user.id}`,
    );
    expect(audit.map((a) => a.details)).toEqual([
      { sessionId: accountId, set: true, scheme: 'socks5', host: '1.2.3.4', port: 1080 },
    ]);
    expect(JSON.stringify(audit)).not.toContain('p@ss');
    // Another user's account: 404, as every account look-up.
    const other = await buildUser(t);
    const otherToken = await loginToken(t.app, other.username);
    expect((await put(t, otherToken, accountId, null)).statusCode).toBe(404);
    const removed = await put(t, token, accountId, null);
    expect(removed.json()).toMatchObject({ proxy: null, message: 'Proxy removed' });
  });

  const testProxy = async (app: TestApp, url: string) => {
    const user = await buildUser(app);
    const token = await loginToken(app.app, user.username);
    const accountId = await createAccount(app, token, {
      phoneNumber: '+91 98765 43303',
      sessionName: 'Shop',
    });
    return app.app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/proxy/test`,
      headers: bearer(token),
      payload: { url },
    });
  };

  it('a test of a proxy that refuses says so (a proxy on this host allowed by ALLOW_PRIVATE_PROXIES)', async () => {
    const res = await testProxy(local, 'socks5://127.0.0.1:1');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: false, exitAddress: null });
    expect(res.json().message).toMatch(/^Proxy refused the connection \(127\.0\.0\.1:1\)/);
  });

  it('a test never dials a loopback or private address (no port scan of the server): 400 before any connection', async () => {
    for (const url of [
      'http://127.0.0.1:5432',
      'socks5://localhost:5432',
      'socks5://10.0.0.1:1080',
      'http://[::ffff:0:127.0.0.1]:5432',
      'http://[2002:7f00:1::]:5432',
      'http://169.254.169.254:8080',
    ]) {
      const res = await testProxy(t, url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().message).toBe('The proxy must be at a public address');
    }
  });

  it('a proxy at a loopback or private address is never saved (every socket of the account would dial it), unless the operator allows it', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const accountId = await createAccount(t, token, { phoneNumber: '+91 98765 43305', sessionName: 'Shop' });
    const urls = [
      'socks5://127.0.0.1:5432',
      'http://localhost:6379',
      'socks5h://10.0.0.1:1080',
      'http://[::ffff:0:127.0.0.1]:5432',
      'http://169.254.169.254:8080',
    ];
    for (const url of urls) {
      const res = await put(t, token, accountId, url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().message).toBe('The proxy must be at a public address');
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/create-instance',
        headers: bearer(token),
        payload: { phoneNumber: '+91 98765 43306', sessionName: 'Other', proxy: url },
      });
      expect(created.statusCode, url).toBe(400);
      expect(created.json().message).toBe('The proxy must be at a public address');
    }
    const stored = await queryRows<{ n: number }>(
      t.db,
      sql`SELECT count(*)::int AS n FROM wa_sessions WHERE user_id = ${user.id} AND proxy IS NOT NULL`,
    );
    expect(stored[0]!.n).toBe(0);
    expect(
      (
        await queryRows<{ n: number }>(
          t.db,
          sql`SELECT count(*)::int AS n FROM wa_sessions WHERE user_id = ${user.id}`,
        )
      )[0]!.n,
    ).toBe(1);

    const allowed = await buildUser(local);
    const allowedToken = await loginToken(local.app, allowed.username);
    const allowedAccount = await createAccount(local, allowedToken, {
      phoneNumber: '+91 98765 43307',
      sessionName: 'Shop',
    });
    const saved = await put(local, allowedToken, allowedAccount, 'socks5://127.0.0.1:1080');
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().proxy).toMatchObject({ host: '127.0.0.1', port: 1080 });
  });

  it('an HTTP proxy that answers 403 to CONNECT is a failure, not WhatsApp reached', async () => {
    const refusing = http.createServer();
    refusing.on('connect', (_req, socket: Duplex) => {
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const { port } = refusing.address() as AddressInfo;
    try {
      const res = await testProxy(local, `http://127.0.0.1:${port}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ ok: false, exitAddress: null });
      expect(res.json().message).toMatch(/CONNECT answered 403/);
    } finally {
      refusing.close();
    }
  });

  it('a password with a bad percent escape is the form to use (400), not a 500', async () => {
    const user = await buildUser(t);
    const token = await loginToken(t.app, user.username);
    const accountId = await createAccount(t, token, { phoneNumber: '+91 98765 43305', sessionName: 'Shop' });
    for (const res of [
      await put(t, token, accountId, 'socks5://u:pa%ZZss@127.0.0.1:1'),
      await t.app.inject({
        method: 'POST',
        url: `/api/session/${accountId}/proxy/test`,
        headers: bearer(token),
        payload: { url: 'socks5://u%E0%A4:p@127.0.0.1:1' },
      }),
    ]) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toBe(INVALID);
    }
  });

  it('without SECRET_KEY a proxy is refused, never stored in plain text', async () => {
    const user = await buildUser(bare);
    const token = await loginToken(bare.app, user.username);
    const accountId = await createAccount(bare, token, {
      phoneNumber: '+91 98765 43304',
      sessionName: 'Shop',
    });
    const res = await put(bare, token, accountId, 'socks5://1.2.3.4:1080');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('A proxy needs SECRET_KEY: it is stored encrypted');
  });
});
