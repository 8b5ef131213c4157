import type { BinaryNode } from 'baileys';
import type { WaEmulator } from './emulator.ts';
import type { Group } from './world.ts';

/** A group as w:g2 describes it (rc14 Socket/groups.js extractGroupMetadata reads it back). */
export function groupNode(emulator: WaEmulator, g: Group): BinaryNode {
  const lidOf = (phone: string) => `${emulator.world.account(phone).lid}@lid`;
  const content: BinaryNode[] = g.members.map((m) => {
    const pn = `${m.phone}@s.whatsapp.net`;
    const attrs: Record<string, string> =
      g.addressingMode === 'lid'
        ? { jid: lidOf(m.phone), phone_number: pn }
        : { jid: pn, lid: lidOf(m.phone) };
    if (m.admin) attrs.type = m.admin;
    return { tag: 'participant', attrs };
  });
  if (g.announce) content.push({ tag: 'announcement', attrs: {} });
  // rc14 Socket/groups.js extractGroupMetadata: ephemeralDuration from `<ephemeral expiration>`.
  if (g.ephemeral > 0) content.push({ tag: 'ephemeral', attrs: { expiration: String(g.ephemeral) } });
  if (g.description)
    content.push({
      tag: 'description',
      attrs: { id: `desc-${g.id}`, t: String(g.creation) },
      content: [{ tag: 'body', attrs: {}, content: Buffer.from(g.description) }],
    });
  const creator: Record<string, string> =
    g.addressingMode === 'lid'
      ? { creator: lidOf(g.creator), creator_pn: `${g.creator}@s.whatsapp.net` }
      : { creator: `${g.creator}@s.whatsapp.net` };
  return {
    tag: 'group',
    attrs: {
      id: g.id,
      subject: g.subject,
      s_t: String(g.creation),
      creation: String(g.creation),
      size: String(g.members.length),
      addressing_mode: g.addressingMode,
      ...creator,
    },
    content,
  };
}
