import type { APIRequestContext } from '@playwright/test';
import { messagesEnvelope, signature } from '../../../server/test/fakes/graph-api-payloads.ts';
import { apiLogin, expect, type TestUser } from '../../fixtures.ts';

/** The fake Graph API's control port (playwright.config.ts starts it beside the product). */
export const CLOUD_CONTROL = `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 3100) + 501}`;

type FakeCredentials = {
  phoneNumberId: string;
  wabaId: string;
  accessToken: string;
  appSecret: string;
  morePhoneNumberIds: string[];
};

/**
 * Connects a Cloud API account of `user` through the product's API, with the first of the fake's
 * spare numbers that no one has connected yet (a phone number ID is connected once in a whole run:
 * cloud.spec.ts takes the main one through the page, a re-run beforeAll takes another).
 */
export async function connectCloudAccount(
  request: APIRequestContext,
  user: TestUser,
  accountName = 'Shop (Cloud)',
): Promise<string> {
  return (await connectCloudNumber(request, user, accountName)).sessionId;
}

/** connectCloudAccount, with the phone number ID it took (Meta's webhooks name the number by it). */
export async function connectCloudNumber(
  request: APIRequestContext,
  user: TestUser,
  accountName: string,
): Promise<{ sessionId: string; phoneNumberId: string }> {
  const creds = (await (await request.get(`${CLOUD_CONTROL}/`)).json()) as FakeCredentials;
  const { token } = await apiLogin(request, user.username, user.password);
  for (const phoneNumberId of creds.morePhoneNumberIds) {
    const res = await request.post('/api/cloud-instances', {
      headers: { authorization: `Bearer ${token}` },
      data: {
        sessionName: accountName,
        phoneNumberId,
        wabaId: creds.wabaId,
        accessToken: creds.accessToken,
        appSecret: creds.appSecret,
        verifyToken: 'my-verify-token',
      },
    });
    if (res.status() === 409) continue;
    if (!res.ok()) throw new Error(`cloud-instances → ${res.status()} ${await res.text()}`);
    return { sessionId: ((await res.json()) as { sessionId: string }).sessionId, phoneNumberId };
  }
  throw new Error('every spare Cloud API number of the fake is connected');
}

/**
 * Meta's signed webhook of a text `from` sent to the account at `at`, posted to the account's
 * callback URL as the fake Graph API would post it (a webhook may come late: `at` in the past).
 */
export async function cloudInbound(
  request: APIRequestContext,
  account: { sessionId: string; phoneNumberId: string },
  message: { from: string; name: string; text: string; at: Date },
): Promise<void> {
  const creds = (await (await request.get(`${CLOUD_CONTROL}/`)).json()) as FakeCredentials;
  const body = JSON.stringify(
    messagesEnvelope(
      creds.wabaId,
      { id: account.phoneNumberId, display: account.sessionId.split('_')[0]! },
      {
        contacts: [{ profile: { name: message.name }, wa_id: message.from }],
        messages: [
          {
            from: message.from,
            id: `wamid.e2e-${message.at.getTime()}-${message.from}`,
            timestamp: String(Math.floor(message.at.getTime() / 1000)),
            type: 'text',
            text: { body: message.text },
          },
        ],
      },
    ),
  );
  const res = await request.post(`/api/cloud/webhook/${account.sessionId}`, {
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature(body, creds.appSecret) },
    data: body,
  });
  expect(res.ok(), await res.text()).toBe(true);
}
