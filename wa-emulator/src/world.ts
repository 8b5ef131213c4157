import { randomBytes, randomInt } from 'node:crypto';
import { type BinaryNode, Curve, type KeyPair, type proto } from 'baileys';
import type { Channel } from './newsletters.ts';
import { SignalPeer } from './signal-peer.ts';

/** One linked device (companion) of an account, as the server knows it after pairing. */
export type LinkedDevice = {
  id: number;
  /** The static noise key the device must log in with. */
  noiseKey: Buffer;
  identityKey: Buffer;
  registrationId: number;
  signedPreKey: { id: number; public: Buffer; signature: Buffer } | null;
  /** One-time prekeys uploaded by the device and not yet handed out. */
  preKeys: Map<number, Buffer>;
  platform: string;
  /**
   * What came for the device while it had no connection (messages, receipts, notifications),
   * oldest first: the server keeps it and hands it over at the next login (connection.ts).
   */
  offline: BinaryNode[];
};

/** A WhatsApp account: its phone (device 0) holds the account key that signs its companions. */
export type Account = {
  phone: string;
  lid: string;
  pushName: string;
  accountKey: KeyPair;
  /** The phone's own Signal identity (device 0): contacts' messages are decrypted with it. */
  signal: SignalPeer;
  devices: Map<number, LinkedDevice>;
  nextDeviceId: number;
  /** What the phone decrypted, in arrival order. */
  inbox: ReceivedMessage[];
  /** Until when WhatsApp restricts this account from starting new chats (the reach-out timelock). */
  reachoutLockedUntil: Date | null;
  /**
   * A WhatsApp Business account: its pair-success names it (`<biz name>`, its push name), which
   * rc14 keeps as creds.me.name (Utils/validate-connection.js configureSuccessfulPairing; whatsmeow
   * pair.go handlePairSuccess reads the same `biz` name).
   */
  business: boolean;
  /**
   * The server gives no LID for this account: its usync answers carry no `<lid>`. A client takes
   * the LID as optional and maps only the users that have one (rc14 Socket/socket.js
   * pnFromLIDUSync keeps the answers with a `lid`; whatsmeow user.go GetUserInfo reads `<lid val>`
   * with OptionalJIDOrEmpty and stores a mapping only when it is there).
   */
  lidWithheld: boolean;
};

/** One message a phone decrypted. */
export type ReceivedMessage = {
  id: string;
  /** The sending account's phone number. */
  from: string;
  /** The chat: the group JID, or the sender's JID as addressed (PN or LID). */
  chat: string;
  /**
   * 'chat' to this phone, 'group', 'sent' (a copy of what another device of the same account
   * sent), or 'status' (a Status post of a contact).
   */
  kind: 'chat' | 'group' | 'sent' | 'status';
  message: proto.IMessage;
  /** The text of a text message, the caption of a media message, the name of a poll. */
  text: string | null;
  at: Date;
};

export type GroupMember = { phone: string; admin: 'admin' | 'superadmin' | null };

export type Group = {
  /** The user part of the group JID (`120363…`, as groups made since 2021 have). */
  id: string;
  subject: string;
  creator: string;
  creation: number;
  addressingMode: 'pn' | 'lid';
  announce: boolean;
  description: string | null;
  inviteCode: string;
  members: GroupMember[];
  /** Disappearing messages timer in seconds (0: off), as w:g2 reports it in `<ephemeral expiration>`. */
  ephemeral: number;
};

/** Everything the emulated network knows: accounts by phone number, their LIDs, groups. */
export class World {
  readonly accounts = new Map<string, Account>();
  readonly groups = new Map<string, Group>();
  /** The phones that view the statuses they get (null: every phone); the others only receive them. */
  statusViewers: Set<string> | null = null;
  /** Channels (newsletters) by the user part of their JID (newsletters.ts). */
  readonly channels = new Map<string, Channel>();
  /** Privacy tokens (tctoken) an account issued to another: `issuer>holder` → token. */
  private readonly tokens = new Map<string, Buffer>();

  /** The privacy token `issuer` gave `holder`, if any. */
  privacyToken(issuer: Account, holder: Account): Buffer | undefined {
    return this.tokens.get(`${issuer.phone}>${holder.phone}`);
  }

  /** `issuer` gives `holder` a privacy token (a new one each time, as a new timestamp bucket would). */
  issuePrivacyToken(issuer: Account, holder: Account): Buffer {
    const token = randomBytes(24);
    this.tokens.set(`${issuer.phone}>${holder.phone}`, token);
    return token;
  }

  account(phone: string, pushName = `Emu ${phone.slice(-4)}`): Account {
    const digits = phone.replace(/\D/g, '');
    let account = this.accounts.get(digits);
    if (!account) {
      account = {
        phone: digits,
        lid: String(100_000_000_000_000 + randomInt(1, 2 ** 47)),
        pushName,
        accountKey: Curve.generateKeyPair(),
        signal: new SignalPeer(),
        devices: new Map(),
        nextDeviceId: 1,
        inbox: [],
        reachoutLockedUntil: null,
        business: false,
        lidWithheld: false,
      };
      this.accounts.set(digits, account);
    }
    return account;
  }

  byLid(lid: string): Account | undefined {
    for (const a of this.accounts.values()) if (a.lid === lid) return a;
    return undefined;
  }

  /** The account a JID names (`123@s.whatsapp.net`, `123:4@s.whatsapp.net`, `456@lid`). */
  byJid(jid: string): Account | undefined {
    const [user, server] = jid.split('@');
    const bare = user?.split(':')[0]?.split('_')[0] ?? '';
    return server === 'lid' ? this.byLid(bare) : this.accounts.get(bare);
  }

  addGroup(input: {
    subject: string;
    creator: string;
    addressingMode?: 'pn' | 'lid';
    announce?: boolean;
    description?: string;
    ephemeral?: number;
    members: GroupMember[];
  }): Group {
    const creation = Math.floor(Date.now() / 1000) - randomInt(86400, 86400 * 400);
    const group: Group = {
      id: `120363${String(randomInt(1e11, 1e12))}`,
      subject: input.subject,
      creator: input.creator,
      creation,
      addressingMode: input.addressingMode ?? 'pn',
      announce: input.announce ?? false,
      description: input.description ?? null,
      inviteCode: randomBytes(16).toString('base64url').slice(0, 22),
      members: input.members,
      ephemeral: input.ephemeral ?? 0,
    };
    for (const m of group.members) this.account(m.phone);
    this.groups.set(group.id, group);
    return group;
  }

  groupsOf(phone: string): Group[] {
    return [...this.groups.values()].filter((g) => g.members.some((m) => m.phone === phone));
  }
}
