import crypto from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isLoopbackHost } from '../../config.ts';
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

export const METRICS_LOOPBACK_ONLY =
  'Metrics are served to this machine only: set METRICS_TOKEN to scrape them from elsewhere';

/**
 * From this machine itself: the connection is from a loopback address and no proxy forwarded
 * it (a reverse proxy on the same host connects from loopback on behalf of anyone).
 */
function fromThisMachine(request: FastifyRequest): boolean {
  const loopback = (address: string | undefined) =>
    address !== undefined && isLoopbackHost(address.replace(/^::ffff:/i, ''));
  if (request.headers['x-forwarded-for'] !== undefined || request.headers.forwarded !== undefined)
    return false;
  return loopback(request.socket.remoteAddress) && loopback(request.ip);
}

/** Probes for orchestrators and the Prometheus scrape; outside /api, so no user token. */
export function registerHealthRoutes(app: App, ctx: AppContext): void {
  if (!ctx.config.metricsToken)
    ctx.log.info('GET /metrics answers on loopback only: set METRICS_TOKEN to scrape it from another host');
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
      if (!token && !fromThisMachine(request))
        return reply.status(403).send({ success: false, message: METRICS_LOOPBACK_ONLY });
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
