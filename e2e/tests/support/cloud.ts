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
 * Connects a Cloud API account of `user` through the product's API, with one of the fake's spare
 * numbers (`spare` 0 or 1: a phone number ID is connected once in a whole run, and cloud.spec.ts
 * takes the first one through the page).
 */
export async function connectCloudAccount(
  request: APIRequestContext,
  user: TestUser,
  spare: 0 | 1,
  sessionName = 'Shop (Cloud)',
): Promise<string> {
  const creds = (await (await request.get(`${CLOUD_CONTROL}/`)).json()) as FakeCredentials;
  const { token } = await apiLogin(request, user.username, user.password);
  const res = await request.post('/api/cloud-instances', {
    headers: { authorization: `Bearer ${token}` },
    data: {
      sessionName,
      phoneNumberId: creds.morePhoneNumberIds[spare],
      wabaId: creds.wabaId,
      accessToken: creds.accessToken,
      appSecret: creds.appSecret,
      verifyToken: 'my-verify-token',
    },
  });
  if (!res.ok()) throw new Error(`cloud-instances → ${res.status()} ${await res.text()}`);
  return ((await res.json()) as { sessionId: string }).sessionId;
}
