import type { FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.ts';

/** Observes every answered request by its route pattern (never the raw URL: ids would explode the label set). */
export function observeHttpDurations(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  });
}
