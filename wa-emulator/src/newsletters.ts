import { randomBytes, randomInt } from 'node:crypto';
import { type BinaryNode, getBinaryNodeChild, proto } from 'baileys';
import type { Connection } from './connection.ts';
import type { WaEmulator } from './emulator.ts';

/** A channel (newsletter) of the emulated network. */
export type Channel = {
  /** The user part of `<id>@newsletter`. */
  id: string;
  name: string;
  description: string;
  /** The owner's phone number; admins may post too. */
  owner: string;
  admins: Set<string>;
  followers: number;
  invite: string;
  createdAt: Date;
  /** What its admins posted, in order; `serverId` numbers them as WhatsApp's ack does. */
  posts: Array<{ id: string; serverId: number; from: string; message: proto.IMessage; at: Date }>;
};

/** rc14 Types/Mex.d.ts NewsletterViewRole, as the asking account sees the channel. */
function roleOf(channel: Channel, phone: string | undefined): 'OWNER' | 'ADMIN' | 'GUEST' {
  if (phone === channel.owner) return 'OWNER';
  return phone && channel.admins.has(phone) ? 'ADMIN' : 'GUEST';
}

/**
 * `thread_metadata` with every field rc14 reads: Socket/newsletter.js parseNewsletterCreateResponse
 * reads `picture.id` unguarded (a null picture would throw), so a picture object is always sent.
 */
function threadOf(c: Channel) {
  return {
    name: { text: c.name, id: c.id, update_time: String(Math.floor(c.createdAt.getTime() / 1000)) },
    description: {
      text: c.description,
      id: c.id,
      update_time: String(Math.floor(c.createdAt.getTime() / 1000)),
    },
    creation_time: String(Math.floor(c.createdAt.getTime() / 1000)),
    invite: c.invite,
    // A string, as WhatsApp sends it (rc14 parses it with parseInt).
    subscribers_count: String(c.followers),
    verification: 'UNVERIFIED',
    picture: { id: '', direct_path: '' },
  };
}

const viewerOf = (c: Channel, phone: string | undefined) => ({ mute: 'OFF', role: roleOf(c, phone) });

type MexPayload = {
  data?: Record<string, unknown>;
  errors?: Array<{ message: string; extensions: { error_code: number } }>;
};
const notFound: MexPayload = { errors: [{ message: 'not found', extensions: { error_code: 404 } }] };

/**
 * Answers of the newsletter w:mex queries by query id (rc14 Types/Mex.js QueryIds), each read back
 * by rc14 Socket/newsletter.js through Socket/mex.js executeWMexQuery (`data.<path>`, or `errors`).
 */
export const NEWSLETTER_ANSWERS: Record<
  string,
  (emulator: WaEmulator, conn: Connection, variables: Record<string, unknown>) => MexPayload
> = {
  // CREATE: newsletterCreate(name, description) → `xwa2_newsletter_create`.
  '8823471724422422': (emulator, conn, variables) => {
    const input = (variables.input ?? {}) as { name?: string; description?: string | null };
    const owner = conn.account?.phone ?? '';
    const channel: Channel = {
      id: `120363${String(randomInt(1e11, 1e12))}`,
      name: String(input.name ?? ''),
      description: String(input.description ?? ''),
      owner,
      admins: new Set(),
      followers: 0,
      invite: randomBytes(16).toString('base64url').slice(0, 22),
      createdAt: new Date(),
      posts: [],
    };
    emulator.world.channels.set(channel.id, channel);
    return {
      data: {
        xwa2_newsletter_create: {
          id: `${channel.id}@newsletter`,
          thread_metadata: threadOf(channel),
          viewer_metadata: viewerOf(channel, owner),
        },
      },
    };
  },
  // METADATA: newsletterMetadata('jid' | 'invite', key) → `xwa2_newsletter`, returned raw by rc14.
  '6563316087068696': (emulator, conn, variables) => {
    const input = (variables.input ?? {}) as { key?: string; type?: string };
    const key = String(input.key ?? '');
    const channel =
      input.type === 'INVITE'
        ? [...emulator.world.channels.values()].find((c) => c.invite === key)
        : emulator.world.channels.get(key.split('@')[0] ?? '');
    if (!channel) return notFound;
    return {
      data: {
        xwa2_newsletter: {
          id: `${channel.id}@newsletter`,
          state: { type: 'ACTIVE' },
          thread_metadata: threadOf(channel),
          viewer_metadata: viewerOf(channel, conn.account?.phone),
        },
      },
    };
  },
};

/**
 * A post to a channel (rc14 Socket/messages-send.js relayMessage, isNewsletter branch): the message
 * comes unencrypted in `<plaintext>` (Utils/generics.js encodeNewsletterMessage), with no
 * participants. An admin's post is kept and acked with its `server_id`; anyone else's is acked
 * with error 403 (rc14 reads it in handleBadAck as a failed send).
 */
export function channelPost(emulator: WaEmulator, conn: Connection, node: BinaryNode): void {
  const id = node.attrs.id ?? '';
  const to = node.attrs.to ?? '';
  const phone = conn.account?.phone;
  const channel = emulator.world.channels.get(to.split('@')[0] ?? '');
  const plaintext = getBinaryNodeChild(node, 'plaintext');
  const allowed = channel && plaintext?.content && roleOf(channel, phone) !== 'GUEST';
  const at = String(Math.floor(Date.now() / 1000));
  if (!channel || !allowed || !phone) {
    conn.send({
      tag: 'ack',
      attrs: { class: 'message', id, from: to, t: at, error: channel ? '403' : '404' },
    });
    return;
  }
  const serverId = channel.posts.length + 100;
  const message = proto.Message.decode(plaintext.content as Uint8Array);
  channel.posts.push({ id, serverId, from: phone, message, at: new Date() });
  conn.send({ tag: 'ack', attrs: { class: 'message', id, from: to, t: at, server_id: String(serverId) } });
}
