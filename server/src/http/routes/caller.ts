import type { FastifyRequest } from 'fastify';
import type { Actor } from '../../policy/access.ts';
import { requireUser } from '../types.ts';

/** Who asks, for services that check the policy and write the audit log: the user and their address. */
export type Caller = { user: Actor & { username: string }; ip: string | null };

export function callerOf(request: FastifyRequest): Caller {
  const user = requireUser(request);
  return {
    user: { id: user.id, role: user.role, username: user.username, ownOnly: user.ownOnly },
    ip: request.ip ?? null,
  };
}
