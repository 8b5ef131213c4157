import { expect } from 'vitest';
import { bearer, type TestApp } from '../helpers.ts';
import { waitFor } from '../wait.ts';
import type { FakeGraphApi } from './graph-api.ts';

/** The body of POST /api/cloud-instances with the fake's credentials (`over` changes some). */
export function connectBody(fake: FakeGraphApi, over: Record<string, string> = {}) {
  return {
    sessionName: 'Shop (Cloud)',
    phoneNumberId: fake.phoneNumberId,
    wabaId: fake.wabaId,
    accessToken: fake.accessToken,
    appSecret: fake.appSecret,
    verifyToken: 'my-verify-token',
    ...over,
  };
}

/** `POST /api/cloud-instances` as the user `token`, which must answer 200: the new account's id. */
export async function postCloudAccount(
  app: TestApp['app'],
  token: string,
  body: ReturnType<typeof connectBody>,
): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/cloud-instances',
    headers: bearer(token),
    payload: body,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().sessionId as string;
}

/**
 * Connects the fake's number as a Cloud API account of the user `token`, points the fake's
 * webhooks at the app listening on `base`, and resolves with the account id once CONNECTED.
 */
export async function connectCloudAccount(
  t: TestApp,
  fake: FakeGraphApi,
  base: string,
  token: string,
): Promise<string> {
  const accountId = await postCloudAccount(t.app, token, connectBody(fake));
  fake.state.webhook = { url: `${base}/api/cloud/webhook/${accountId}`, retryDelayMs: 100, maxAttempts: 20 };
  await waitFor('the Cloud account connected', async () => {
    const list = await t.app.inject({ method: 'GET', url: '/api/sessions', headers: bearer(token) });
    return (
      list.json().sessions.find((s: { sessionId: string }) => s.sessionId === accountId)?.status ===
      'CONNECTED'
    );
  });
  return accountId;
}
