import type { APIRequestContext } from '@playwright/test';
import { apiLogin, type TestUser } from '../../fixtures.ts';

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
  sessionName = 'Shop (Cloud)',
): Promise<string> {
  const creds = (await (await request.get(`${CLOUD_CONTROL}/`)).json()) as FakeCredentials;
  const { token } = await apiLogin(request, user.username, user.password);
  for (const phoneNumberId of creds.morePhoneNumberIds) {
    const res = await request.post('/api/cloud-instances', {
      headers: { authorization: `Bearer ${token}` },
      data: {
        sessionName,
        phoneNumberId,
        wabaId: creds.wabaId,
        accessToken: creds.accessToken,
        appSecret: creds.appSecret,
        verifyToken: 'my-verify-token',
      },
    });
    if (res.status() === 409) continue;
    if (!res.ok()) throw new Error(`cloud-instances → ${res.status()} ${await res.text()}`);
    return ((await res.json()) as { sessionId: string }).sessionId;
  }
  throw new Error('every spare Cloud API number of the fake is connected');
}
