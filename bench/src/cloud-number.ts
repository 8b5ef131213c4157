/**
 * A Cloud number on Meta's HIGH throughput, connected through the product's own route to the
 * fake Graph API, with a bench user who owns it: what the Cloud rows at full speed share.
 */
import type { AddressInfo } from 'node:net';
import type { AppContext } from '../../server/src/context.ts';
import { createContext } from '../../server/src/context.ts';
import { buildApp } from '../../server/src/http/app.ts';
import type { App } from '../../server/src/http/types.ts';
import { type FakeGraphApi, startFakeGraphApi } from '../../server/test/fakes/graph-api.ts';
import { benchAuth, benchUser } from './setup.ts';

export type HighNumber = {
  ctx: AppContext;
  app: App;
  /** The product's HTTP server, on a real port. */
  base: string;
  fake: FakeGraphApi;
  user: Awaited<ReturnType<typeof benchUser>>;
  sessionId: string;
};

export async function withHighNumber<T>(
  benchCtx: AppContext,
  credits: number,
  latencyMs: number,
  fn: (n: HighNumber) => Promise<T>,
): Promise<T> {
  const fake = await startFakeGraphApi({
    latencyMs,
    phone: { whatsapp_business_manager_messaging_limit: 'TIER_UNLIMITED', throughput: { level: 'HIGH' } },
    templates: [
      {
        name: 'order_update',
        language: 'en',
        category: 'UTILITY',
        status: 'APPROVED',
        components: [{ type: 'BODY', text: 'Your order {{1}} has shipped.' }],
      },
    ],
  });
  const ctx = createContext(
    { ...benchCtx.config, cloudApiBaseUrl: fake.baseUrl },
    benchCtx.database,
    'bench',
  );
  const app = await buildApp(ctx);
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const user = await benchUser(ctx, credits);
    const connected = await app.inject({
      method: 'POST',
      url: '/api/cloud-instances',
      headers: await benchAuth(app, user.username),
      payload: {
        sessionName: 'Bench (Cloud)',
        phoneNumberId: fake.phoneNumberId,
        wabaId: fake.wabaId,
        accessToken: fake.accessToken,
        appSecret: fake.appSecret,
        verifyToken: 'bench-verify',
      },
    });
    if (connected.statusCode !== 200) throw new Error(`connect: ${connected.body}`);
    return await fn({ ctx, app, base, fake, user, sessionId: connected.json().sessionId as string });
  } finally {
    await app.close();
    await fake.close();
  }
}
