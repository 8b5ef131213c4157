import { statusCodeOf } from './mapping.ts';
import type { BaileysSocket } from './socket.ts';

/**
 * Invite codes one at a time, `spacingMs` apart, so that a large account does not hit WhatsApp's
 * rate limit (rc14 Socket/groups.js groupInviteCode: one iq per group).
 */
export class InviteCodes {
  private gate: Promise<void> = Promise.resolve();

  constructor(private readonly spacingMs: number) {}

  /** The group's invite code; null when the account is not (or no longer) its admin. */
  code(open: () => BaileysSocket, groupId: string): Promise<string | null> {
    const turn = this.gate.then(async () => {
      const sock = open();
      try {
        return (await sock.groupInviteCode(groupId)) ?? null;
      } catch (err) {
        const code = (err as { data?: unknown }).data;
        if (code === 401 || code === 403 || statusCodeOf(err) === 401 || statusCodeOf(err) === 403)
          return null;
        throw err;
      } finally {
        await new Promise((r) => setTimeout(r, this.spacingMs));
      }
    });
    this.gate = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }
}
