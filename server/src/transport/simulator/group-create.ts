import { GROUP_JID_SUFFIX, jidUser } from '@wa/contract';
import type { AuthStore } from '../auth-store.ts';
import { digitsOf, type SimulatedGroup, simulatedOwnJid, simulatedOwnLid } from './network.ts';

/** Where the simulated account keeps the groups it made (its auth state: every node and restart sees them). */
export const SIMULATED_NEW_GROUPS_KEY = 'simulated-new-groups';

/**
 * Groups the simulated account makes, as rc14's `groupCreate` (Socket/groups.js) makes them: a
 * new `120363…@g.us` id, the account its super admin and creator, and the members WhatsApp
 * added. A number the simulated directory says is not on WhatsApp (ending 0000, numbers.ts) is
 * not added, as WhatsApp answers such a participant with an error and leaves it out.
 */
export class SimulatedNewGroups {
  constructor(
    private readonly auth: AuthStore,
    private readonly accountId: string,
    private readonly phone: string,
  ) {}

  async create(subject: string, participants: string[]): Promise<SimulatedGroup> {
    const known = await this.known();
    const id = `120363${digitsOf(`new-group:${this.accountId}:${known.length}:${Date.now()}`, 12)}${GROUP_JID_SUFFIX}`;
    const ownJid = simulatedOwnJid(this.phone);
    const group: SimulatedGroup = {
      id,
      subject,
      owner: ownJid,
      creation: Math.floor(Date.now() / 1000),
      announce: false,
      ownRole: 'superadmin',
      participants: [
        { id: ownJid, phoneNumber: this.phone, lid: simulatedOwnLid(this.accountId), admin: 'superadmin' },
        ...participants
          .filter((jid) => !jidUser(jid).endsWith('0000'))
          .map((jid) => ({ id: jid, phoneNumber: jidUser(jid), lid: null, admin: null })),
      ],
      lastMessage: null,
    };
    await this.auth.write([{ key: SIMULATED_NEW_GROUPS_KEY, value: JSON.stringify([...known, group]) }]);
    return group;
  }

  /** The groups made so far, oldest first. */
  async known(): Promise<SimulatedGroup[]> {
    const text = await this.auth.read(SIMULATED_NEW_GROUPS_KEY);
    return text ? (JSON.parse(text) as SimulatedGroup[]) : [];
  }
}
