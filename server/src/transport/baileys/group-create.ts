import type { GroupInfo } from '../types.ts';
import { toGroupInfo } from './mapping.ts';
import type { BaileysSocket } from './socket.ts';

/**
 * A new group through rc14's `groupCreate` (Socket/groups.js: one `create` query with the
 * subject and the participants). Its answer lists every participant asked for, including those
 * WhatsApp did not add (their error attribute is dropped by `extractGroupMetadata`), so the
 * group's members are read again from `groupMetadata`: only those are in it.
 */
export async function createGroupThrough(
  sock: Pick<BaileysSocket, 'groupCreate' | 'groupMetadata'>,
  subject: string,
  participants: string[],
): Promise<GroupInfo> {
  const created = await sock.groupCreate(subject, participants);
  return toGroupInfo(await sock.groupMetadata(created.id));
}
