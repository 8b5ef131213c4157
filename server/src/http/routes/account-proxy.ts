import {
  AccountIdParams,
  AccountProxyBody,
  AccountProxyResponse,
  ErrorResponse,
  ProxyTestBody,
  ProxyTestResponse,
} from '@wa/contract';
import { getAccountProxy, setAccountProxy, testAccountProxy } from '../../accounts/proxy.ts';
import { recordAudit } from '../../audit/record.ts';
import type { AppContext } from '../../context.ts';
import { type App, requireUser } from '../types.ts';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

/** An account's proxy: shown without its password, set, removed, tested. */
export function registerAccountProxyRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/session/:sessionId/proxy',
    {
      schema: {
        tags: ['sessions'],
        summary: "The account's proxy (never its password)",
        params: AccountIdParams,
        response: { 200: AccountProxyResponse, ...errors },
      },
    },
    async (request) => {
      const proxy = await getAccountProxy(ctx, requireUser(request), request.params.sessionId);
      return { success: true as const, message: proxy ? 'Proxy set' : 'No proxy', proxy };
    },
  );

  app.put(
    '/api/session/:sessionId/proxy',
    {
      schema: {
        tags: ['sessions'],
        summary:
          'Set (socks5://user:pass@host:port or http://…) or remove (null) the proxy; the account reconnects through it',
        params: AccountIdParams,
        body: AccountProxyBody,
        response: { 200: AccountProxyResponse, ...errors },
      },
    },
    async (request) => {
      const user = requireUser(request);
      const { sessionId: accountId } = request.params;
      const proxy = await setAccountProxy(ctx, user, accountId, request.body.url);
      await recordAudit(ctx.db, {
        actor: { id: user.id, username: user.username },
        action: 'session.proxy',
        targetUserId: user.id,
        details: proxy
          ? { sessionId: accountId, set: true, scheme: proxy.scheme, host: proxy.host, port: proxy.port }
          : { sessionId: accountId, set: false },
        ip: request.ip,
      });
      return {
        success: true as const,
        message: proxy ? 'Proxy saved: the account reconnects through it' : 'Proxy removed',
        proxy,
      };
    },
  );

  app.post(
    '/api/session/:sessionId/proxy/test',
    {
      schema: {
        tags: ['sessions'],
        summary: "Test a proxy (the given URL, else the account's): reaches WhatsApp, and its exit address",
        params: AccountIdParams,
        body: ProxyTestBody,
        response: { 200: ProxyTestResponse, ...errors },
      },
    },
    async (request) => {
      const user = requireUser(request);
      const { sessionId: accountId } = request.params;
      const result = await testAccountProxy(ctx, user, accountId, request.body?.url);
      await recordAudit(ctx.db, {
        actor: { id: user.id, username: user.username },
        action: 'session.proxy-test',
        targetUserId: user.id,
        details: { sessionId: accountId, ok: result.ok, exitAddress: result.exitAddress },
        ip: request.ip,
      });
      return { success: true as const, ...result };
    },
  );
}
