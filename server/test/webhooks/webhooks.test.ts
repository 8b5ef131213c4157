import { describe, expect, it } from 'vitest';
import { bearer, buildUser, DB_KINDS, loginToken, testAppFor } from '../helpers.ts';

describe.each(DB_KINDS)('webhooks API on %s', (kind) => {
  const t = testAppFor(kind);

  async function signedIn() {
    const user = await buildUser(t);
    return { user, token: await loginToken(t.app, user.username) };
  }

  it('refuses private and loopback addresses unless ALLOW_PRIVATE_WEBHOOKS is set', async () => {
    const { token } = await signedIn();
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'https://10.1.2.3/hook',
      'http://192.168.1.10/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/hook',
      'http://[fd00::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      // IPv4-compatible (::/96) and NAT64 (64:ff9b::/96, 64:ff9b:1::/48) forms of private addresses
      'http://[::127.0.0.1]/hook',
      'http://[::10.0.0.1]/hook',
      'http://[64:ff9b::127.0.0.1]/hook',
      'http://[64:ff9b::a9fe:a9fe]/hook',
      'http://[64:ff9b:1::a00:1]/hook',
      // Translated (::ffff:0:0/96), hex-mapped, 6to4 (2002::/16) and Teredo forms of loopback
      'http://[::ffff:0:127.0.0.1]/hook',
      'http://[::ffff:7f00:1]/hook',
      'http://[2002:7f00:1::]/hook',
      'http://[2002:a9fe:a9fe::1]/hook',
      'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook',
      'http://0.0.0.0/hook',
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/webhooks',
        headers: bearer(token),
        payload: { url, events: ['job.finished'] },
      });
      expect(res.json(), url).toEqual({ success: false, message: 'Webhook URL must be a public address' });
      expect(res.statusCode).toBe(400);
    }
    const list = await t.app.inject({ method: 'GET', url: '/api/webhooks', headers: bearer(token) });
    expect(list.json()).toEqual({ success: true, webhooks: [] });
  });

  it('says what is wrong with a URL or an event list', async () => {
    const { token } = await signedIn();
    const cases: [object, string][] = [
      [{ url: 'not a url', events: ['job.finished'] }, 'Webhook URL is not a valid URL'],
      [
        { url: 'ftp://example.com/x', events: ['job.finished'] },
        'Webhook URL must start with https:// or http://',
      ],
      [
        { url: 'https://u:p@example.com/x', events: ['job.finished'] },
        'Webhook URL must not contain a user name or password',
      ],
      [{ url: 'https://example.com/x', events: [] }, 'Choose at least one event'],
      [
        { url: 'https://example.com/x', events: ['job.started'] },
        'Events are job.finished, message.status, session.status, optout and message.received',
      ],
      [
        { url: 'https://example.com/x', events: 'job.finished' },
        'Events are job.finished, message.status, session.status, optout and message.received',
      ],
      [{ url: '', events: ['job.finished'] }, 'Webhook URL is required'],
    ];
    for (const [payload, message] of cases) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/webhooks',
        headers: bearer(token),
        payload,
      });
      expect(res.json(), JSON.stringify(payload)).toEqual({ success: false, message });
      expect(res.statusCode).toBe(400);
    }
  });
});
