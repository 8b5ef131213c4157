import { CHANNEL_JID_SUFFIX } from '@wa/contract';
import type { AuthStore } from '../auth-store.ts';
import type { ChannelInfo, TransportChannels } from '../types.ts';
import { digitsOf } from './network.ts';

/** Where the simulated account keeps the channels it knows (its auth state: every node and restart sees them). */
export const SIMULATED_CHANNELS_KEY = 'simulated-channels';

/**
 * The simulated network's channels. A created channel starts with no followers, as on WhatsApp;
 * a channel added by its link is one the account administers with a follower count derived from
 * the code, except that a code starting with `guest` is a channel the account only follows
 * (rc14 Types/Mex.d.ts NewsletterViewRole GUEST), which may not be posted to.
 */
export class SimulatedChannels implements TransportChannels {
  constructor(
    private readonly auth: AuthStore,
    private readonly accountId: string,
  ) {}

  async create(name: string, description: string | null): Promise<ChannelInfo> {
    const known = await this.known();
    const id = `120363${digitsOf(`channel:${this.accountId}:${name}:${known.length}:${Date.now()}`, 12)}${CHANNEL_JID_SUFFIX}`;
    const channel: ChannelInfo = {
      id,
      name,
      description,
      followers: 0,
      role: 'OWNER',
      invite: `SIM${digitsOf(`invite:${id}`, 10)}`,
    };
    await this.save([...known, channel]);
    return channel;
  }

  async byId(id: string): Promise<ChannelInfo | null> {
    return (await this.known()).find((c) => c.id === id) ?? null;
  }

  async byInvite(code: string): Promise<ChannelInfo | null> {
    const known = await this.known();
    const existing = known.find((c) => c.invite === code);
    if (existing) return existing;
    const digits = digitsOf(`invite-code:${code}`, 12);
    const channel: ChannelInfo = {
      id: `120363${digits}${CHANNEL_JID_SUFFIX}`,
      name: `Channel ${code}`,
      description: null,
      followers: 100 + (Number(digits.slice(0, 6)) % 9900),
      role: code.toLowerCase().startsWith('guest') ? 'GUEST' : 'ADMIN',
      invite: code,
    };
    // Kept only when the account may post (as the product keeps it).
    if (channel.role !== 'GUEST') await this.save([...known, channel]);
    return channel;
  }

  /** Whether the account may post to this channel. */
  async mayPost(id: string): Promise<boolean> {
    const channel = await this.byId(id);
    return channel !== null && (channel.role === 'OWNER' || channel.role === 'ADMIN');
  }

  private async known(): Promise<ChannelInfo[]> {
    const text = await this.auth.read(SIMULATED_CHANNELS_KEY);
    return text ? (JSON.parse(text) as ChannelInfo[]) : [];
  }

  private save(channels: ChannelInfo[]): Promise<void> {
    return this.auth.write([{ key: SIMULATED_CHANNELS_KEY, value: JSON.stringify(channels) }]);
  }
}
