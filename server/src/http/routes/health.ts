import crypto from 'node:crypto';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { checkReadiness } from '../../metrics/health.ts';
import type { App } from '../types.ts';

const Health = z.object({ status: z.string() });
const NotReady = z.object({ status: z.literal('unavailable'), reason: z.string() });

function sameSecret(given: string, expected: string): boolean {
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

/** Probes for orchestrators and the Prometheus scrape; outside /api, so no user token. */
export function registerHealthRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/healthz',
    { schema: { tags: ['operations'], response: { 200: Health } }, config: { public: true } },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    { schema: { tags: ['operations'], response: { 200: Health, 503: NotReady } }, config: { public: true } },
    async (_request, reply) => {
      const readiness = await checkReadiness(ctx.db);
      if (!readiness.ready)
        return reply.status(503).send({ status: 'unavailable', reason: readiness.reason });
      return { status: 'ready' };
    },
  );

  app.get(
    '/metrics',
    { schema: { tags: ['operations'], hide: true }, config: { public: true } },
    async (request, reply) => {
      const token = ctx.config.metricsToken;
      if (token) {
        const m = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
        if (!m || !sameSecret(m[1]!, token)) {
          return reply
            .status(401)
            .header('www-authenticate', 'Bearer realm="metrics"')
            .send({ success: false, message: 'Unauthorized' });
        }
      }
      const { registry } = ctx.metrics;
      return reply.type(registry.contentType).send(await registry.metrics());
    },
  );
}
