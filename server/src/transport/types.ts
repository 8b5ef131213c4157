import type { EventEmitter } from 'node:events';
import type { AccountCapabilities, AccountKind, AccountProvider, Address } from '@wa/contract';

/**
 * One linked WhatsApp account. Two implementations: Baileys (the real network) and the
 * simulator. Nothing above this interface knows which one runs.
 */

export type TransportState = 'connecting' | 'qr' | 'open' | 'closed';

export type GroupParticipantInfo = {
  /** The participant's JID as WhatsApp gives it (by phone or by LID). */
  id: string;
  /** Digits of the phone number when known. */
  phoneNumber: string | null;
  lid: string | null;
  admin: 'admin' | 'superadmin' | null;
};

export type GroupInfo = {
  id: string;
  subject: string;
  owner: string | null;
  /** Seconds since the epoch. */
  creation: number | null;
  /** Only admins may send messages. */
  announce: boolean;
  /**
   * How the group addresses its members. Baileys assumes 'lid' when the cached metadata has
   * none (Socket/messages-send.js), which makes a phone-number group's members unable to
   * decrypt: undefined when unknown, so that Baileys fetches the group instead.
   */
  addressingMode?: 'pn' | 'lid';
  /** Disappearing messages timer in seconds, when on. */
  ephemeralDuration?: number;
  participants: GroupParticipantInfo[];
  /** The latest message the transport knows of in this chat, when it knows one. */
  lastMessage?: IncomingLastMessage | null;
};

export type IncomingLastMessage = {
  chatId: string;
  sender: string;
  /** Seconds since the epoch. */
  timestamp: number;
  body: string | null;
};

export type MediaKind = 'image' | 'video' | 'audio' | 'document';

export type OutgoingMessage =
  | { kind: 'text'; text: string }
  | {
      kind: 'media';
      /** How WhatsApp shows it, decided above the transport from the bytes (messaging/media-kind.ts). */
      as: MediaKind;
      /** The file's true type. */
      mime: string;
      data: Buffer;
      fileName: string | null;
      caption: string;
    }
  | {
      kind: 'poll';
      name: string;
      options: string[];
      allowMultipleAnswers: boolean;
      /** The job's message secret, which its votes are encrypted with; none: the transport makes one. */
      secret?: Buffer | null;
    }
  /** An approved template of a Cloud API account, its body's values rendered for this recipient. */
  | { kind: 'template'; name: string; language: string; parameters: string[]; parameterNames?: string[] };

export type SendResult = {
  /**
   * The message id WhatsApp knows the message by. The send is done when WhatsApp took the
   * message; an error it reports later for this id arrives as a 'send-failed' event.
   */
  messageId: string;
  /** The chat the message went to when WhatsApp named another JID for the number (e.g. Brazil's 9th digit). */
  chatId?: string;
  /**
   * The transport's copy of the message, for later: Baileys answers WhatsApp's retry requests and
   * decrypts poll votes from it (getMessage reads wa_sent_messages); the simulator's outbox lists
   * it. The engine stores it in the statement that records the send (one write per tick, not one
   * per message), so a recipient shown sent always has it.
   */
  kept?: string;
};

/** A Status post WhatsApp took; `leftOut`: audience members (of those given) it could not be addressed to. */
export type StatusResult = SendResult & { leftOut?: string[] };

export type SendOptions = {
  messageId?: string | null;
  /**
   * Called once the recipient passed the transport's own checks (on WhatsApp, not opted out) and
   * before anything of the message goes out, with the chat it goes to: the engine shows "typing…"
   * here, so a contact the transport refuses never sees it. What it throws, the send throws, with
   * nothing sent. Every transport with `presence` calls it.
   */
  beforeRelay?: (chatId: string) => Promise<void>;
};

/** Why a send failed. `permanent` failures are not worth waiting and retrying automatically. */
export type SendErrorCode =
  | 'not-connected'
  | 'not-on-whatsapp'
  | 'not-admin'
  | 'not-in-group'
  | 'restricted' // error 463: account restricted; pauses new one-to-one chats, never retried
  | 'invalid'
  | 'timeout'
  | 'rate-limited' // 429 rate-overlimit: nothing was sent; the account waits and tries again
  | 'retry-later' // Cloud API 131049: not sent now; this recipient is tried again at `until` (a limited number of times)
  | 'unknown';

export class SendError extends Error {
  constructor(
    readonly code: SendErrorCode,
    message: string,
    /** For a pause: when WhatsApp lifts the restriction, when it said. */
    readonly until: Date | null = null,
    /**
     * The id the message was given when it may have left (the socket closed before WhatsApp's
     * ack): sent again, it keeps this id, so that WhatsApp can tell a copy it already took.
     */
    readonly messageId: string | null = null,
  ) {
    super(message);
  }
  /** Nothing was sent and the recipient is tried again later: not a failure. */
  get retriesLater(): boolean {
    return this.code === 'not-connected' || this.code === 'rate-limited';
  }
  /** The account's one-to-one sends pause (463); group sends go on. */
  get pausesAccount(): boolean {
    return this.code === 'restricted';
  }
}

export type ConnectionUpdate =
  | { state: 'connecting' }
  | { state: 'qr'; qr: string }
  | { state: 'open'; jid: string; lid: string | null }
  | {
      state: 'closed';
      /** In words, for the account's status. */
      reason: string;
      /** The phone unlinked the device (401): credentials were wiped. */
      loggedOut: boolean;
      /** The transport will reconnect by itself. */
      willReconnect: boolean;
    };

export type ReceiptUpdate = {
  messageId: string;
  status: 'delivered' | 'read';
  at: Date;
  /**
   * A status view: the viewer's phone digits. A status is one message id for its whole audience,
   * so its receipts always name who (a status receipt without one is never emitted).
   */
  by?: string;
};

/** A Status post: a text on a coloured background, or an image or a video with a caption. */
export type StatusPost =
  | { kind: 'text'; text: string /** #RRGGBB */; backgroundColor: string; font: number }
  | { kind: 'media'; as: 'image' | 'video'; mime: string; data: Buffer; caption: string };

/**
 * WhatsApp restricts (or stops restricting) the account's new one-to-one chats: error 463 and its
 * reach-out timelock, or the CAPPED new-chat quota. `until` is when it ends, when WhatsApp said.
 */
export type QuotaUpdate = { capped: boolean; reason: string | null; until: Date | null };

/**
 * A text someone wrote to the account in a one-to-one chat. `from` is the chat id of the sender's
 * address (contract/jid.ts): their phone-number JID when WhatsApp gives or maps the number, else
 * their LID (a linked phone) or BSUID (a Cloud API number).
 */
export type IncomingText = { from: string; text: string; messageId: string } & IncomingDetail;

/**
 * What the Inbox shows of an incoming message beside its text (all optional: a text needs none).
 * `type`: text, image, video, audio, document, sticker, poll_vote, location, …; `caption`: a
 * file's caption; `media`: the file, fetched again through its provider (`ref` is the provider's
 * own reference); `name`: the name WhatsApp gives the sender; `answers`: the id of the account's
 * message this one quotes or votes on; `votes`: the options a poll vote chose, in the poll's order
 * ([] when the person took their vote back), null when the transport could not read them (a poll
 * the product did not send).
 */
export type IncomingDetail = {
  type?: string;
  caption?: string | null;
  media?: IncomingMedia | null;
  name?: string | null;
  answers?: string | null;
  votes?: string[] | null;
};

/** A file someone sent: its type and name, and the provider's reference to fetch it. */
export type IncomingMedia = { mime: string; fileName: string | null; ref: string };

/** A one-to-one message that is no text (a file, a poll vote, a location): reported with `text` null. */
export type IncomingOther = Omit<IncomingText, 'text'> & { text: null; type: string };

/** A one-to-one message as the engine takes it: `text` null when it is no text. */
export type IncomingMessage = Omit<IncomingText, 'text'> & { text: string | null; at?: Date };

/** WhatsApp refused a message after the send had resolved (an error status for its id). */
export type SendFailure = {
  messageId: string;
  /** 'restricted' for error 463 (the account's new chats are restricted). */
  code: 'restricted' | 'unknown';
  reason: string;
};

/**
 * What a transport learned of why messages the account sent may never arrive: numbers
 * WhatsApp answers are not on it (their chat JIDs), or messages the recipient could not decrypt
 * after WhatsApp's retries, which the transport has given up answering.
 */
export type UndeliveredCause =
  | { cause: 'not-on-whatsapp'; chatIds: string[] }
  | { cause: 'decrypt-gave-up'; messageIds: string[] };

export type TransportEventMap = {
  connection: [ConnectionUpdate];
  'groups-upsert': [GroupInfo[]];
  'groups-update': [Array<Partial<GroupInfo> & { id: string }>];
  'last-message': [IncomingLastMessage];
  receipt: [ReceiptUpdate];
  'send-failed': [SendFailure];
  'undelivered-cause': [UndeliveredCause];
  quota: [QuotaUpdate];
  'incoming-text': [IncomingText];
  /** A one-to-one message that is no text: a file, a poll vote, a location (for the Inbox). */
  'incoming-other': [IncomingOther];
  /** WhatsApp showed that these addresses are one person's (rc14's LID-number mapping, `remoteJidAlt`). */
  'same-person': [Address[]];
  /** Credentials changed (saved by the transport itself); lets the runner mark `hasCredentials`. */
  'creds-saved': [];
};

/** A code to link the account by phone number, and until when it works. */
export type PairingCode = { code: string; expiresAt: Date };

export interface Transport extends EventEmitter<TransportEventMap> {
  readonly accountId: string;
  readonly state: TransportState;
  /** Starts (or restarts) the connection. Events report what happens. */
  connect(): Promise<void>;
  /** Closes the socket without unlinking the device (the node gives the account up). */
  close(): Promise<void>;
  /** Unlinks the device and wipes the stored credentials; absent when there is nothing to unlink (close is all). */
  logout?(): Promise<void>;
  /** The account's groups; absent when it has none (capabilities.groups). */
  fetchGroups?(): Promise<GroupInfo[]>;
  /**
   * Makes a group named `subject` with these members (their phone-number JIDs) and the account as
   * its super admin; WhatsApp's answer lists who it added. Absent when the account cannot
   * (capabilities.createGroups).
   */
  createGroup?(subject: string, participants: string[]): Promise<GroupInfo>;
  /** The invite code of a group where the account is admin; null when it is not allowed. */
  inviteCode?(groupId: string): Promise<string | null>;
  /** Which of these phone numbers (digits) are on WhatsApp; returns their chat JIDs. */
  onWhatsApp(phoneNumbers: string[]): Promise<Map<string, string | null>>;
  /**
   * Sends one message; throws SendError. Resolves once WhatsApp took the message (its server's
   * ack, where the kind of account has one). `messageId`: the id a send that may have left
   * already had (SendError.messageId), to send it again under the same id.
   */
  send(chatId: string, message: OutgoingMessage, options?: SendOptions): Promise<SendResult>;
  /**
   * While a QR is shown: the code that links the account's phone number instead (WhatsApp →
   * Linked devices → Link with phone number). Asked of WhatsApp once per connection; later
   * calls answer the same code. Throws when no linking is under way. Absent when the account is
   * not linked by a code (capabilities.pairing).
   */
  requestPairingCode?(): Promise<PairingCode>;
  /** Shows "typing…" to the chat ('composing') or stops showing it ('paused'); absent when it cannot (capabilities.typing). */
  presence?(chatId: string, state: 'composing' | 'paused'): Promise<void>;
  /**
   * One Status post to `audience` (phone-number JIDs); resolves when WhatsApp took it (`messageId`:
   * the id of an earlier attempt cut before its ack, as for send). Its views
   * come back as receipts with `by`. Absent when the account cannot post one (capabilities.status).
   */
  postStatus?(post: StatusPost, audience: string[], options?: SendOptions): Promise<StatusResult>;
  /** Present only on a simulated network: the orders its API routes give it. */
  readonly simulated?: SimulatedNetwork;
  /** What this kind of account can do (its provider's capabilities). */
  readonly capabilities: TransportCapabilities;
  /** Channels (newsletters), present when this kind of account has them; posts go through `send`. */
  readonly channels?: TransportChannels;
}

/** A channel (newsletter) as WhatsApp describes it to this account. */
export type ChannelInfo = {
  /** `<digits>@newsletter`. */
  id: string;
  name: string;
  description: string | null;
  followers: number;
  /** The account's role; GUEST or SUBSCRIBER: it may not post. */
  role: 'OWNER' | 'ADMIN' | 'SUBSCRIBER' | 'GUEST';
  invite: string | null;
};

/** What an account does with channels (rc14 Socket/newsletter.js); each call asks WhatsApp. */
export interface TransportChannels {
  create(name: string, description: string | null): Promise<ChannelInfo>;
  /** null: WhatsApp knows no such channel. */
  byId(id: string): Promise<ChannelInfo | null>;
  byInvite(code: string): Promise<ChannelInfo | null>;
}

/** What only one kind of account can do: the engine and the pages ask these instead of asking which transport runs. */
export type TransportCapabilities = AccountCapabilities;

/** What a person does to a simulated account (the simulator's link, disconnect and logout routes). */
export interface SimulatedNetwork {
  /** The API served the first QR of this cycle at `at`: the account links some time later. */
  qrServed(at: Date): void;
  /** The user scans the QR now; false when no QR is shown. */
  linkNow(): Promise<boolean>;
  /** The connection drops (network loss); the transport reconnects by itself. */
  dropConnection(): boolean;
  /** The phone removes this linked device. */
  unlinkFromPhone(): Promise<boolean>;
  /**
   * A person writes `text` to the account (`from` as digits or a JID, by phone or by
   * LID; `senderPn`: the number WhatsApp gives beside a LID): reported as the network would
   * report it. `media`: a file (base64 `data`), `text` its caption. False when the account is not
   * connected.
   */
  receiveText(
    from: string,
    text: string,
    senderPn?: string,
    media?: { type: string; mime: string; data: string; fileName?: string },
  ): boolean;
}

/** A group of the account's cache, as a transport reads it (injected by its factory). */
export type CachedGroup = GroupInfo & { isAdmin: boolean };

/** Reads one group of the account's cache; undefined when it is not cached. */
export type GroupLookup = (groupId: string) => Promise<CachedGroup | undefined>;

/** The account a transport is built for. */
export type TransportAccount = { accountId: string; phoneNumber: string };

/**
 * What comes back from an account, whatever its kind, as every provider reports it: by socket
 * (a linked phone's transport events) or by webhook (a Cloud API number's inbound adapter). The
 * engine takes these through one door (messaging/engine/outcomes.ts).
 */
export type AccountOutcome =
  /** The recipient's phone took the message, or its person read it (a Status view names `by`). */
  | { type: 'receipt'; receipt: ReceiptUpdate }
  /**
   * WhatsApp refused a message after the send had resolved. `retryAt`: not a failure, the
   * recipient waits until then and is sent again (the Cloud API's per-user marketing limit).
   */
  | { type: 'refused'; messageId: string; reason: string; retryAt: Date | null }
  /** What the message is charged as (a Cloud API number's pricing), and whether it was delivered. */
  | { type: 'priced'; messageId: string; category: string; billable: boolean | null; delivered: boolean }
  /**
   * Someone wrote to the account in a one-to-one chat (`text` null: media or another kind of
   * message); `at`: when, when the provider says (else: now).
   */
  | { type: 'incoming'; message: IncomingMessage }
  /**
   * WhatsApp showed that these addresses belong to one person (a LID's number, a webhook with
   * both `user_id` and `wa_id`, a username beside its BSUID): never a guess.
   */
  | { type: 'same-person'; addresses: Address[] };

/**
 * A kind of account's provider, as its own folder describes it: the kind it is stored and priced
 * as, what it can do, and how it is connected ('link': a QR or a pairing code, `POST
 * /api/create-instance`; 'credentials': ids and tokens, `POST /api/cloud-instances`). The table
 * that adds its transport factory is accounts/providers.ts.
 */
export type ProviderDescriptor = {
  id: AccountProvider;
  kind: AccountKind;
  connect: 'link' | 'credentials';
  capabilities: AccountCapabilities;
};
