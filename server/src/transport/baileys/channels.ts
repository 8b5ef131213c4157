import type { ChannelInfo, TransportChannels } from '../types.ts';
import { statusCodeOf } from './mapping.ts';
import type { BaileysSocket } from './socket.ts';

/** rc14 Types/Mex.d.ts NewsletterViewRole. */
const ROLES = ['OWNER', 'ADMIN', 'SUBSCRIBER', 'GUEST'] as const;
const roleOf = (value: unknown): ChannelInfo['role'] =>
  ROLES.find((r) => r === String(value ?? '').toUpperCase()) ?? 'GUEST';

/**
 * `xwa2_newsletter` as rc14's newsletterMetadata returns it: raw (Socket/newsletter.js
 * parseNewsletterMetadata only unwraps `{ result }`), so the fields are WhatsApp's: the follower
 * count a string in `thread_metadata.subscribers_count`, the role in `viewer_metadata.role`.
 */
type RawNewsletter = {
  id: string;
  thread_metadata?: {
    name?: { text?: string };
    description?: { text?: string };
    subscribers_count?: string | number;
    invite?: string;
  };
  viewer_metadata?: { role?: string } | null;
};

export function channelOfMetadata(raw: RawNewsletter): ChannelInfo {
  const t = raw.thread_metadata ?? {};
  return {
    id: raw.id,
    name: t.name?.text ?? '',
    description: t.description?.text || null,
    followers: Number.parseInt(String(t.subscribers_count ?? '0'), 10) || 0,
    role: roleOf(raw.viewer_metadata?.role),
    invite: t.invite || null,
  };
}

/** GraphQL's "not found" (Socket/mex.js throws a Boom with the error's code): no such channel. */
const notFound = (err: unknown) => statusCodeOf(err) === 404;

/** Channels through rc14's Socket/newsletter.js (w:mex queries of Socket/mex.js). */
export class BaileysChannels implements TransportChannels {
  constructor(private readonly sock: () => BaileysSocket) {}

  async create(name: string, description: string | null): Promise<ChannelInfo> {
    const sock = this.sock();
    // newsletterCreate's parse gives the subscriber count and mute state but not the role (the creator owns it).
    const created = await sock.newsletterCreate(name, description ?? undefined);
    return {
      id: created.id,
      name: created.name,
      description: created.description || null,
      followers: created.subscribers ?? 0,
      role: 'OWNER',
      invite: created.invite || null,
    };
  }

  byId(id: string): Promise<ChannelInfo | null> {
    return this.metadata('jid', id);
  }

  byInvite(code: string): Promise<ChannelInfo | null> {
    return this.metadata('invite', code);
  }

  private async metadata(type: 'jid' | 'invite', key: string): Promise<ChannelInfo | null> {
    try {
      const raw = (await this.sock().newsletterMetadata(type, key)) as RawNewsletter | null;
      return raw ? channelOfMetadata(raw) : null;
    } catch (err) {
      if (notFound(err)) return null;
      throw err;
    }
  }
}
