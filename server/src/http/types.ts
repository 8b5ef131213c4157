import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { forbidden, unauthorized } from '../errors.ts';
import type { UserRow } from '../users/repository.ts';

export type App = FastifyInstance<
  Server,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  ZodTypeProvider
>;

export type RouteInfo = { method: string; url: string; public: boolean };

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered, for the authorisation tests that walk them all. */
    routeList: RouteInfo[];
  }
  interface FastifyRequest {
    /** The signed-in user; set by the auth hook on every non-public route. */
    user: RequestUser | null;
    token: string | null;
    /** True when the bearer token is an API key rather than a sign-in. */
    viaApiKey: boolean;
  }
  interface FastifyContextConfig {
    /** Reachable without a bearer token. */
    public?: boolean;
    /** ADMIN only: checked before the body is validated, so a USER always gets 403. */
    admin?: boolean;
    /** Needs a password sign-in: a `wak_` API key is refused (403). */
    noApiKey?: boolean;
    /** Requests per user in a window, shared by the routes of one name and by every node (user-limit.ts). */
    userLimit?: { name: string; max: number; windowMs: number };
  }
}

/** The user behind a request; `ownOnly` when it came with an API key (policy/access.ts). */
export type RequestUser = UserRow & { ownOnly?: boolean };

export function requireUser(request: FastifyRequest): RequestUser {
  if (!request.user) throw unauthorized();
  return request.user;
}

export function requireAdmin(request: FastifyRequest): RequestUser {
  const user = requireUser(request);
  if (user.role !== 'ADMIN') throw forbidden('Admin access required');
  return user;
}
