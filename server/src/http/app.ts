import fs from 'node:fs';
import path from 'node:path';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { API_KEY_MESSAGES, TWO_FACTOR_MESSAGES } from '@wa/contract';
import Fastify, { type FastifyReply } from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import helmet from 'helmet';
import { authenticateApiKey, isApiKey } from '../api-keys/service.ts';
import { authenticate } from '../auth/service.ts';
import { mustSetUpTwoFactor } from '../auth/two-factor.ts';
import type { AppContext } from '../context.ts';
import { badRequest, forbidden, unauthorized } from '../errors.ts';
import { observeHttpDurations } from '../metrics/http.ts';
import { errorHandler } from './errors.ts';
import { jsonShapeProblem } from './json-guard.ts';
import { registerRoutes } from './routes/index.ts';
import type { App, RouteInfo } from './types.ts';
import { enforceUserLimits } from './user-limit.ts';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * JSON bodies whose text has no `\u0000` escape: a NUL can reach a parsed JSON string only through
 * that escape (JSON allows no raw control character in a string), so these need no walk.
 */
const nulFreeBodies = new WeakSet<object>();

/** True when any string in a parsed JSON value contains a NUL character (PostgreSQL text cannot hold one). */
function containsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return true;
    } else if (v && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (k.includes('\u0000')) return true;
        stack.push(child);
      }
    }
  }
  return false;
}

/** What an ADMIN who must set up two-factor sign-in (REQUIRE_ADMIN_2FA) can still reach. */
const TWO_FACTOR_SETUP_ROUTES = new Set([
  '/api/auth/2fa',
  '/api/auth/2fa/setup',
  '/api/auth/2fa/enable',
  '/api/auth/logout',
  '/api/userDetails',
]);

function bearer(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  return m ? m[1]! : null;
}

/** Builds the HTTP app on a context. Listening and background work are the caller's. */
export async function buildApp(ctx: AppContext): Promise<App> {
  const app = Fastify({
    loggerInstance: ctx.log,
    bodyLimit: DEFAULT_BODY_LIMIT,
    // A hop count as proxy-addr's function (Fastify's types take no number): trust the first n hops.
    trustProxy:
      typeof ctx.config.trustProxy === 'number'
        ? (
            (hops: number) => (_address: string, hop: number) =>
              hop < hops
          )(ctx.config.trustProxy)
        : ctx.config.trustProxy,
    genReqId: () => Math.random().toString(36).slice(2, 10),
    // Errors the router raises before any route runs (a malformed or over-long address).
    frameworkErrors: (error, _request, reply) => {
      const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 400;
      const message =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'The address is too long' : 'The address is not valid';
      (reply as FastifyReply).status(status).send({ success: false, message });
    },
  }).withTypeProvider<ZodTypeProvider>();

  const routeList: RouteInfo[] = [];
  app.decorate('routeList', routeList);
  // swagger-ui registers its routes without our config; mark them public.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/api/docs')) route.config = { ...(route.config ?? {}), public: true };
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method !== 'HEAD') routeList.push({ method, url: route.url, public: !!route.config?.public });
    }
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler);
  app.decorateRequest('user', null);
  observeHttpDurations(app, ctx.metrics);
  app.decorateRequest('token', null);
  app.decorateRequest('viaApiKey', false);

  // Helmet's middleware is made once: the Fastify plugin made it again for every request, parsing
  // the policy's directives each time (a tenth of a busy webhook route's CPU).
  const securityHeaders = helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        mediaSrc: ["'self'", 'data:', 'blob:'],
        connectSrc: ["'self'"],
        frameAncestors: ["'none'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        // Over plain HTTP (a LAN address) it would send every asset to an https:// that does not answer.
        upgradeInsecureRequests: null,
      },
    },
    hsts: false,
    crossOriginEmbedderPolicy: false,
  });
  app.addHook('onRequest', (request, reply, done) =>
    securityHeaders(request.raw, reply.raw, (err?: unknown) => done(err as Error | undefined)),
  );
  // HSTS and upgrade-insecure-requests only when the client reached us over TLS: directly, or
  // through a trusted proxy's X-Forwarded-Proto (TRUST_PROXY).
  app.addHook('onSend', async (request, reply) => {
    if (request.protocol !== 'https') return;
    reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
    const csp = reply.getHeader('content-security-policy');
    if (typeof csp === 'string') reply.header('content-security-policy', `${csp};upgrade-insecure-requests`);
  });
  await app.register(rateLimit, { global: false });

  await app.register(swagger, {
    openapi: {
      info: { title: 'WhatsApp bulk messaging console API', version: '0.1.0' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, {
    routePrefix: '/api/docs',
    staticCSP: true,
    uiConfig: { deepLinking: false },
  });

  // API answers carry personal data (contacts, jobs, keys, tokens): no browser or proxy keeps them.
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.url?.startsWith('/api/') || request.url.startsWith('/api'))
      reply.header('cache-control', 'no-store');
  });

  // Every /api route needs a valid bearer token unless it is marked public.
  app.addHook('onRequest', async (request) => {
    // The route's own URL, not the raw one: `/%61pi/...` reaches an /api route too.
    const route = request.routeOptions.url;
    if (!route) return; // unknown route: the not-found handler answers 404
    if (!route.startsWith('/api/')) return;
    if (request.routeOptions.config?.public) return;
    const token = bearer(request.headers.authorization);
    const viaApiKey = token !== null && isApiKey(token);
    const user = token ? await (viaApiKey ? authenticateApiKey : authenticate)(ctx.db, token) : null;
    if (!user) {
      throw unauthorized();
    }
    if (request.routeOptions.config?.admin && user.role !== 'ADMIN') throw forbidden('Admin access required');
    // A key acts on its user's own API only: never the admin API, never to make keys.
    if (viaApiKey && (request.routeOptions.config?.admin || request.routeOptions.config?.noApiKey))
      throw forbidden(API_KEY_MESSAGES.notHere);
    if (mustSetUpTwoFactor(ctx.config, user) && !TWO_FACTOR_SETUP_ROUTES.has(request.routeOptions.url))
      throw forbidden(TWO_FACTOR_MESSAGES.required);
    // A key acts on its own user's resources only (not on the users an admin manages).
    request.user = viaApiKey ? { ...user, ownOnly: true } : user;
    request.token = token;
    request.viaApiKey = viaApiKey;
  });

  enforceUserLimits(app, ctx);

  // The raw body's shape is checked before it is parsed (json-guard.ts); the parser is Fastify's own.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    const problem = jsonShapeProblem(text);
    if (problem) return done(badRequest(problem), undefined);
    if (!text.includes('\\u0000')) nulFreeBodies.add(request);
    return parseJson(request, text, done);
  });

  // After validation: the schema has already dropped unknown keys and refused wrong types, so
  // only what the route will use is walked.
  app.addHook('preHandler', async (request) => {
    const body = nulFreeBodies.has(request) ? null : request.body;
    if (containsNul(request.params) || containsNul(request.query) || containsNul(body)) {
      throw badRequest('Text must not contain NUL characters');
    }
  });

  await registerRoutes(app, ctx);

  const index = path.join(ctx.config.webDistDir, 'index.html');
  const hasWeb = fs.existsSync(index);
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: ctx.config.webDistDir,
      prefix: '/',
      wildcard: false,
      index: 'index.html',
      // The build names every file under assets/ by its content's hash, so a name never gets new
      // content: browsers keep them a year without asking again (a reload of the console asked
      // for each file). index.html, which names them, is asked for every time (max-age=0).
      setHeaders: (reply, filePath) => {
        if (path.relative(ctx.config.webDistDir, filePath).startsWith(`assets${path.sep}`))
          reply.header('cache-control', 'public, max-age=31536000, immutable');
      },
    });
  }
  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith('/api/') || request.url === '/api' || !hasWeb || request.method !== 'GET') {
      return reply
        .status(404)
        .send({ success: false, message: `Route ${request.method} ${request.url.split('?')[0]} not found` });
    }
    return reply.type('text/html').sendFile('index.html');
  });

  return app as unknown as App;
}
