import { expect } from 'vitest';
import type { TestApp } from '../helpers.ts';
import { bearer } from '../helpers.ts';
import { waitFor } from '../wait.ts';

export async function createAccount(
  t: TestApp,
  token: string,
  body: { phoneNumber: string; sessionName: string } = {
    phoneNumber: '+91 98765 43210',
    sessionName: 'Main',
  },
): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/create-instance',
    headers: bearer(token),
    payload: body,
  });
  if (res.statusCode !== 200) throw new Error(`create-instance: ${res.statusCode} ${res.body}`);
  return res.json().sessionId as string;
}

export async function statusOf(t: TestApp, token: string, accountId: string) {
  const res = await t.app.inject({ method: 'GET', url: `/api/${accountId}/status`, headers: bearer(token) });
  return res.json() as { connected: boolean; status: string; statusReason: string | null };
}

/** Creates an instance and links it through the simulator's link route; resolves when CONNECTED. */
export async function connectedAccount(
  t: TestApp,
  token: string,
  phoneNumber = '919876543210',
): Promise<string> {
  const accountId = await createAccount(t, token, { phoneNumber, sessionName: `S ${phoneNumber}` });
  await waitFor(
    'first QR',
    async () =>
      (await t.app.inject({ method: 'GET', url: `/api/${accountId}/QR`, headers: bearer(token) }))
        .statusCode === 200,
    5000,
  );
  const link = await t.app.inject({
    method: 'POST',
    url: `/api/simulator/sessions/${accountId}/link`,
    headers: bearer(token),
  });
  if (link.statusCode !== 200) throw new Error(`link: ${link.statusCode} ${link.body}`);
  await waitFor('CONNECTED', async () => (await statusOf(t, token, accountId)).connected, 5000);
  return accountId;
}

/** Sets the sending policy of each of the user's accounts `sessionIds`; each answer must be a 200. */
export async function putPolicy(t: TestApp, token: string, accountIds: string[], policy: object) {
  for (const accountId of accountIds) {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/session/${accountId}/policy`,
      headers: bearer(token),
      payload: policy,
    });
    expect(res.statusCode, res.body).toBe(200);
  }
}
