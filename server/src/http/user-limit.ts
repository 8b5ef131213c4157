import type { AppContext } from '../context.ts';
import { countInWindow } from '../db/rate-counter.ts';
import { AppError } from '../errors.ts';
import type { App } from './types.ts';

/**
 * A limit per signed-in user on a kind of request, shared by every route that names the same
 * `name` and by every node on the database (db/rate-counter.ts): a route's `config.userLimit`.
 */
export type UserLimit = { name: string; max: number; windowMs: number };

/**
 * Checks `config.userLimit` after the sign-in is known and before the body is read: over the
 * limit, 429 with Retry-After. A refused request counts too, so retrying in a loop does not help.
 */
export function enforceUserLimits(app: App, ctx: AppContext): void {
  app.addHook('onRequest', async (request, reply) => {
    const limit = request.routeOptions.config?.userLimit;
    if (!limit || !request.user) return;
    const { count, resetMs } = await countInWindow(
      ctx.db,
      `${limit.name}:${request.user.id}`,
      limit.windowMs,
    );
    const seconds = Math.max(1, Math.ceil(resetMs / 1000));
    reply.header('x-ratelimit-limit', limit.max);
    reply.header('x-ratelimit-remaining', Math.max(0, limit.max - count));
    if (count <= limit.max) return;
    reply.header('retry-after', seconds);
    throw new AppError('rate_limited', `Rate limit exceeded, retry in ${seconds} seconds`);
  });
}
