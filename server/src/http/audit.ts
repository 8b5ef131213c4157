import { TWO_FACTOR_MESSAGES } from '@wa/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type AuditEntry, recordAudit } from '../audit/record.ts';
import type { Db } from '../db/client.ts';
import { findUserByUsername } from '../users/repository.ts';

/**
 * How a route describes itself in the audit log, from its request and its answer; null when
 * there is nothing to record (a refused or invalid request of an admin route).
 */
export type AuditDescriber = (
  request: FastifyRequest,
  statusCode: number,
  // biome-ignore lint/suspicious/noExplicitAny: the route's JSON answer, read by its own describer
  answer: any,
  db: Db,
) => Promise<AuditEntry | null> | AuditEntry | null;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Record this route's successful calls (and, for sign-in, its failures) in the audit log. */
    audit?: AuditDescriber;
  }
}

const ok = (status: number) => status >= 200 && status < 300;

function actorOf(request: FastifyRequest) {
  const user = request.user!;
  return { id: user.id, username: user.username };
}

/** What an admin sent, never the password itself (a new one shows as 'changed'). */
function withoutPassword(body: unknown, markChange: boolean): Record<string, unknown> {
  const { password, ...rest } = (body ?? {}) as Record<string, unknown>;
  return password === undefined || !markChange ? rest : { ...rest, password: 'changed' };
}

export const AUDIT = {
  login: async (request, status, answer, db) => {
    const ip = request.ip ?? null;
    if (ok(status))
      return {
        actor: { id: answer.user.id, username: answer.user.username },
        action: 'auth.login',
        targetUserId: answer.user.id,
        ip,
      };
    // The first step of a two-factor sign-in is not a failure.
    if (answer?.twoFactor && answer.message === TWO_FACTOR_MESSAGES.codeNeeded) return null;
    if (status !== 401 && status !== 403 && status !== 429) return null;
    const username = String((request.body as { username?: unknown } | undefined)?.username ?? '').slice(
      0,
      100,
    );
    const user = username ? await findUserByUsername(db, username) : undefined;
    return {
      actor: { id: null, username },
      action: 'auth.login-failed',
      targetUserId: user?.id ?? null,
      details: { reason: answer?.message ?? `HTTP ${status}` },
      ip,
    };
  },
  userCreate: (request, status, answer) =>
    ok(status)
      ? {
          actor: actorOf(request),
          action: 'user.create',
          targetUserId: answer.user.id,
          details: withoutPassword(request.body, false),
          ip: request.ip,
        }
      : null,
  userUpdate: (request, status) =>
    ok(status)
      ? {
          actor: actorOf(request),
          action: 'user.update',
          targetUserId: (request.params as { id: string }).id,
          details: withoutPassword(request.body, true),
          ip: request.ip,
        }
      : null,
  credits: (request, status, answer) =>
    ok(status)
      ? {
          actor: actorOf(request),
          action: 'user.credits',
          targetUserId: (request.params as { id: string }).id,
          details: { ...(request.body as object), balance: answer.credits },
          ip: request.ip,
        }
      : null,
} satisfies Record<string, AuditDescriber>;

/**
 * Records the audited routes' calls before their answer leaves: a client never hears of an
 * admin action that is not in the log.
 */
export function recordAuditedRoutes(app: FastifyInstance, db: Db): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const describe = request.routeOptions.config?.audit;
    if (!describe) return payload;
    let answer: unknown = null;
    try {
      answer = typeof payload === 'string' ? JSON.parse(payload) : null;
    } catch {}
    const entry = await describe(request, reply.statusCode, answer, db);
    if (entry) await recordAudit(db, entry);
    return payload;
  });
}
