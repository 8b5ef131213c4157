import type { EventEmitter } from 'node:events';

/**
 * One linked WhatsApp account. Two implementations: Baileys (the real network) and the
 * simulator. Nothing above this interface knows which one runs.
 */

export type TransportState = 'connecting' | 'qr' | 'open' | 'closed';

export type GroupParticipantInfo = {
  /** The participant's JID as WhatsApp gives it (`…@s.whatsapp.net` or `…@lid`). */
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
  | { kind: 'poll'; name: string; options: string[]; allowMultipleAnswers: boolean };

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
  | 'unknown';

export class SendError extends Error {
  constructor(
    readonly code: SendErrorCode,
    message: string,
    /** For a pause: when WhatsApp lifts the restriction, when it said. */
    readonly until: Date | null = null,
  ) {
    super(message);
  }
  /** Nothing was sent and the recipient is tried again later: not a failure. */
  get retriesLater(): boolean {
    return this.code === 'not-connected' || this.code === 'rate-limited';
  }
  /** The account's one-to-one sends pause (463); group sends go on. */
  get pausesSession(): boolean {
    return this.code === 'restricted';
  }
}

export type ConnectionUpdate =
  | { state: 'connecting' }
  | { state: 'qr'; qr: string }
  | { state: 'open'; jid: string; lid: string | null }
  | {
      state: 'closed';
      /** In words, for the session's status. */
      reason: string;
      /** The phone unlinked the device (401): credentials were wiped. */
      loggedOut: boolean;
      /** The transport will reconnect by itself. */
      willReconnect: boolean;
    };

export type ReceiptUpdate = { messageId: string; status: 'delivered' | 'read'; at: Date };

/**
 * WhatsApp restricts (or stops restricting) the account's new one-to-one chats: error 463 and its
 * reach-out timelock, or the CAPPED new-chat quota. `until` is when it ends, when WhatsApp said.
 */
export type QuotaUpdate = { capped: boolean; reason: string | null; until: Date | null };

/**
 * A text someone wrote to the account in a one-to-one chat. `from` is the sender's phone-number
 * JID (`<digits>@s.whatsapp.net`): a chat addressed by LID is reported under the number WhatsApp
 * maps it to, and not at all when no number is known.
 */
export type IncomingText = { from: string; text: string; messageId: string };

/** WhatsApp refused a message after the send had resolved (an error status for its id). */
export type SendFailure = {
  messageId: string;
  /** 'restricted' for error 463 (the account's new chats are restricted). */
  code: 'restricted' | 'unknown';
  reason: string;
};

export type TransportEventMap = {
  connection: [ConnectionUpdate];
  'groups-upsert': [GroupInfo[]];
  'groups-update': [Array<Partial<GroupInfo> & { id: string }>];
  'last-message': [IncomingLastMessage];
  receipt: [ReceiptUpdate];
  'send-failed': [SendFailure];
  quota: [QuotaUpdate];
  'incoming-text': [IncomingText];
  /** Credentials changed (saved by the transport itself); lets the runner mark `hasCredentials`. */
  'creds-saved': [];
};

/** A code to link the account by phone number, and until when it works. */
export type PairingCode = { code: string; expiresAt: Date };

export interface Transport extends EventEmitter<TransportEventMap> {
  readonly sessionId: string;
  readonly state: TransportState;
  /** Starts (or restarts) the connection. Events report what happens. */
  connect(): Promise<void>;
  /** Closes the socket without unlinking the device (the node gives the session up). */
  close(): Promise<void>;
  /** Unlinks the device and wipes the stored credentials. */
  logout(): Promise<void>;
  fetchGroups(): Promise<GroupInfo[]>;
  /** The invite code of a group where the account is admin; null when it is not allowed. */
  inviteCode(groupId: string): Promise<string | null>;
  /** Which of these phone numbers (digits) are on WhatsApp; returns their chat JIDs. */
  onWhatsApp(phoneNumbers: string[]): Promise<Map<string, string | null>>;
  /** Sends one message; throws SendError. */
  send(chatId: string, message: OutgoingMessage): Promise<SendResult>;
  /**
   * While a QR is shown: the code that links the session's phone number instead (WhatsApp →
   * Linked devices → Link with phone number). Asked of WhatsApp once per connection; later
   * calls answer the same code. Throws when no linking is under way.
   */
  requestPairingCode(): Promise<PairingCode>;
  /** Shows "typing…" to the chat ('composing') or stops showing it ('paused'). */
  presence(chatId: string, state: 'composing' | 'paused'): Promise<void>;
  /** Present only on a simulated network: the orders its API routes give it. */
  readonly simulated?: SimulatedNetwork;
}

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
   * A person writes `text` to the account (`from` as digits or a JID, `@s.whatsapp.net` or
   * `@lid`): reported as the network would report it. False when the account is not connected.
   */
  receiveText(from: string, text: string): boolean;
}

/** A group of the session's cache, as a transport reads it (injected by its factory). */
export type CachedGroup = GroupInfo & { isAdmin: boolean };

/** Reads one group of the session's cache; undefined when it is not cached. */
export type GroupLookup = (groupId: string) => Promise<CachedGroup | undefined>;

/** The session a transport is built for. */
export type TransportSession = { sessionId: string; phoneNumber: string };
