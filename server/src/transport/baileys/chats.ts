import type { EventEmitter } from 'node:events';
import { addressOfChatId, bareJid, chatIdOfPhone, isGroupJid, isLidJid, isPhoneJid } from '@wa/contract';
import {
  type BaileysEventMap,
  type GroupMetadata,
  normalizeMessageContent,
  proto,
  type WAMessage,
} from 'baileys';
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { GroupInfo, GroupLookup, IncomingLastMessage, TransportEventMap } from '../types.ts';
import { readIncoming } from './incoming.ts';
import { applyParticipantChange, digitsOfJid, messageBody, toGroupInfo, toParticipant } from './mapping.ts';
import type { BaileysSocket } from './socket.ts';

type Emitter = Pick<EventEmitter<TransportEventMap>, 'emit'>;

/**
 * What one account's sockets report of its chats: group changes (kept in the account's cache
 * above), the latest message of each group, and texts written to the account. Its state outlives
 * a socket; `isCurrent(generation)` says whether an event's socket is still the account's.
 */
export class ChatEvents {
  readonly lastMessages = new Map<string, IncomingLastMessage>();
  /** Members of groups changed by events since their last query, and the chain applying the events. */
  private readonly changedMembers = new Map<string, GroupInfo['participants']>();
  private participantChanges: Promise<void> = Promise.resolve();
  /** The incoming messages being reported, in order, and how many are. */
  private reported: Promise<void> = Promise.resolve();
  private reporting = 0;
  /** Group metadata queries waiting for the events to calm down, by group. */
  private readonly groupRefetches = new Map<string, NodeJS.Timeout>();
  /** LID-number pairs already reported (revealedPerson): a person writing often is joined once. */
  private readonly revealed = new LRUCache<string, true>({ max: 10_000 });

  constructor(
    private readonly out: Emitter,
    private readonly deps: {
      accountId: string;
      groups: GroupLookup;
      log: FastifyBaseLogger;
      /** Participant events of a group are followed by one metadata query this much later. */
      groupRefetchDelayMs: number;
      /** A text from a LID with no known number (lid-texts.ts). */
      holdLidText: (lidJid: string, messageId: string, text: string) => Promise<void>;
      /** The options a poll vote chose (poll-votes.ts); without it a vote is reported without them. */
      readVote?: (m: WAMessage) => Promise<string[] | null>;
      current: () => { sock: BaileysSocket | null; generation: number };
    },
  ) {}

  /** The socket is gone: pending group queries and unconfirmed member changes go with it. */
  reset(): void {
    for (const timer of this.groupRefetches.values()) clearTimeout(timer);
    this.groupRefetches.clear();
    this.changedMembers.clear();
  }

  private isCurrent(generation: number): boolean {
    return this.deps.current().generation === generation;
  }

  groupsUpsert(metas: GroupMetadata[]): void {
    this.out.emit(
      'groups-upsert',
      metas.map((m) => toGroupInfo(m)),
    );
  }

  groupsUpdate(generation: number, updates: BaileysEventMap['groups.update']): void {
    const known = updates.filter((u): u is Partial<GroupMetadata> & { id: string } => !!u.id);
    const changes = known.map((u) => ({
      id: u.id,
      ...(u.subject !== undefined ? { subject: u.subject } : {}),
      ...(u.announce !== undefined ? { announce: !!u.announce } : {}),
    }));
    if (changes.length > 0) this.out.emit('groups-update', changes);
    // A change notified alone is confirmed by reading the whole group (one query however many
    // changes): rc14's event buffer keeps only the first groups.update of a group until it
    // flushes (Utils/event-buffer.js append: `if (!data.groupUpdates[id])`), and it buffers all
    // that came while the account was offline, so a second change (admins only after a new
    // subject) is never emitted. The disappearing messages timer comes this way too
    // (Socket/messages-recv.js `ephemeral`, `not_ephemeral`). Whole groups with their members
    // (groupFetchAllParticipating emits its list as groups.update, Socket/groups.js) are the
    // answer already: a query each would be the burst that WhatsApp answers with 429.
    for (const u of known) if (!u.participants) this.refetchGroupLater(u.id, generation);
  }

  /**
   * The change goes into the cache at once; one query later confirms the whole group. A query
   * per event made WhatsApp answer rate-overlimit (429) on busy groups. In order, each on the
   * members as the previous event left them (the cache is written later).
   */
  participantsUpdate(generation: number, update: BaileysEventMap['group-participants.update']): void {
    const { id, action, participants } = update;
    this.participantChanges = this.participantChanges.then(async () => {
      try {
        const base = this.changedMembers.get(id) ?? (await this.deps.groups(id))?.participants;
        if (!base || !this.isCurrent(generation)) return;
        const members = applyParticipantChange(base, action, participants.map(toParticipant));
        this.changedMembers.set(id, members);
        this.out.emit('groups-update', [{ id, participants: members }]);
      } catch (err) {
        this.deps.log.warn({ err, groupId: id }, 'group participants update failed');
      }
    });
    this.refetchGroupLater(id, generation);
  }

  /** One metadata query per group per `groupRefetchDelayMs`, however many events arrive. */
  private refetchGroupLater(groupId: string, generation: number): void {
    if (this.groupRefetches.has(groupId)) return;
    const timer = setTimeout(() => {
      this.groupRefetches.delete(groupId);
      const { sock } = this.deps.current();
      if (!sock || !this.isCurrent(generation)) return;
      this.refreshGroup(sock, groupId).catch((err) =>
        this.deps.log.warn({ err, groupId }, 'group metadata refresh failed'),
      );
    }, this.deps.groupRefetchDelayMs);
    this.groupRefetches.set(groupId, timer);
  }

  /** The group as WhatsApp has it now, into the account's cache; returns it. */
  async refreshGroup(sock: BaileysSocket, groupId: string): Promise<GroupInfo> {
    const info = toGroupInfo(await sock.groupMetadata(groupId), this.lastMessages.get(groupId));
    this.changedMembers.delete(groupId);
    this.out.emit('groups-upsert', [info]);
    return info;
  }

  /**
   * The LID and the number WhatsApp gives together on a message someone sent (Utils/decode-wa-
   * message.js extractAddressingContext: `sender_pn` or `participant_pn` beside a LID sender,
   * `sender_lid` or `participant_lid` beside a number; rc14 keys them `remoteJidAlt` in a
   * one-to-one chat, `participantAlt` in a group): reported as one person's, once per pair on
   * this socket.
   */
  revealedPerson(generation: number, m: WAMessage): void {
    const key = m.key as { remoteJidAlt?: string; participantAlt?: string };
    const [jid, alt] = m.key.participant
      ? [m.key.participant, key.participantAlt]
      : [m.key.remoteJid, key.remoteJidAlt];
    const one = addressOfChatId(jid);
    const other = addressOfChatId(alt);
    if (!one || !other || !this.isCurrent(generation)) return;
    const kinds = new Set([one.kind, other.kind]);
    if (!(kinds.has('lid') && kinds.has('phone'))) return;
    const pair = `${one.kind}:${one.value}|${other.kind}:${other.value}`;
    if (this.revealed.has(pair)) return;
    this.revealed.set(pair, true);
    this.out.emit('same-person', [one, other]);
  }

  /**
   * A message someone wrote in a one-to-one chat (a text, or for the Inbox a file, a poll vote, …;
   * incoming.ts reads it), reported under the sender's phone number when
   * WhatsApp gives it. rc14 keys a chat addressed by LID with `remoteJid` the LID and
   * `remoteJidAlt` the number when the stanza carried it (Utils/decode-wa-message.js, sender_pn);
   * otherwise its LID mapping store may know it (Signal/lid-mapping.js getPNForLID). Either way the
   * LID and the number are reported as one person's. A LID with no known number is reported under
   * the LID (a STOP from it opts the person out at once) and held until the LID resolves
   * (lid-texts.ts), so that a send to the number finds it.
   */
  incomingText(generation: number, m: WAMessage): void {
    const chatId = m.key.remoteJid;
    if (!m.key.id || !chatId || !(isPhoneJid(chatId) || isLidJid(chatId))) return;
    const read = readIncoming(m.message);
    if (!read) return;
    // A vote's options are read while the messages before it are reported; the messages are
    // reported in the order they came (a changed vote after the vote it changes).
    const reading =
      read.type === 'poll_vote' && this.deps.readVote
        ? this.deps.readVote(m).then(
            (votes) => ({ ...read, votes }),
            (err: unknown) => {
              this.deps.log.warn({ err, accountId: this.deps.accountId }, 'a poll vote could not be read');
              return { ...read, votes: null };
            },
          )
        : null;
    if (!reading && this.reporting === 0) {
      const done = this.incoming(generation, m, chatId, read);
      if (done) this.inOrder(done);
      return;
    }
    this.inOrder(
      this.reported.then(async () => {
        await this.incoming(generation, m, chatId, reading ? await reading : read);
      }),
    );
  }

  /** `done` reports an incoming message: the next one is reported after it. */
  private inOrder(done: Promise<void>): void {
    this.reporting++;
    this.reported = done
      .catch((err: unknown) =>
        this.deps.log.warn({ err, accountId: this.deps.accountId }, 'an incoming message was not reported'),
      )
      .finally(() => {
        this.reporting--;
      });
  }

  /** Reports one incoming message; a promise when that waits for rc14's LID mapping store. */
  private incoming(
    generation: number,
    m: WAMessage,
    chatId: string,
    read: NonNullable<ReturnType<typeof readIncoming>>,
  ): Promise<void> | undefined {
    const { text, ...detail } = read;
    const messageId = m.key.id!;
    const alt = (m.key as { remoteJidAlt?: string }).remoteJidAlt;
    const report = (pn: string | null) => {
      if (!this.isCurrent(generation)) return;
      const digits = digitsOfJid(pn);
      const from = digits ? chatIdOfPhone(digits) : (bareJid(chatId) ?? chatId);
      const more = { ...detail, name: m.pushName ?? null };
      // Files, poll votes and the like are reported for the Inbox; only texts reach opt-outs and auto-replies.
      if (text === null) this.out.emit('incoming-other', { from, messageId, ...more, text: null });
      else this.out.emit('incoming-text', { from, text, messageId, ...more });
    };
    // A number beside the LID was reported with it (revealedPerson).
    const pn = isPhoneJid(chatId) ? chatId : alt && isPhoneJid(alt) ? alt : null;
    if (pn) {
      report(pn);
      return;
    }
    const { sock } = this.deps.current();
    if (!sock) return;
    return sock.signalRepository.lidMapping
      .getPNForLID(chatId)
      .then(async (pn) => {
        if (pn) {
          // rc14's mapping store knew the number: the LID and it are one person's.
          const lid = addressOfChatId(chatId);
          const phone = addressOfChatId(pn);
          if (lid && phone && this.isCurrent(generation)) this.out.emit('same-person', [lid, phone]);
          return report(pn);
        }
        report(null);
        if (text !== null) await this.deps.holdLidText(chatId, messageId, text);
      })
      .catch((err) => this.deps.log.warn({ err, accountId: this.deps.accountId }, 'LID lookup failed'));
  }

  /**
   * Status changes of our own messages: an error (Socket/messages-recv.js handleBadAck, the code
   * first in messageStubParameters) goes to `onError`; delivery and read become receipts.
   */
  statusUpdates(
    updates: BaileysEventMap['messages.update'],
    onError: (messageId: string, code: string | undefined) => void,
  ): void {
    const { ERROR, DELIVERY_ACK, READ, PLAYED } = proto.WebMessageInfo.Status;
    for (const { key, update } of updates) {
      if (!key.id || !key.fromMe) continue;
      if (update.status === ERROR) onError(key.id, update.messageStubParameters?.[0]);
      else if (update.status === DELIVERY_ACK)
        this.out.emit('receipt', { messageId: key.id, status: 'delivered', at: new Date() });
      else if (update.status === READ || update.status === PLAYED)
        this.out.emit('receipt', { messageId: key.id, status: 'read', at: new Date() });
    }
  }

  /** Group receipts arrive per member; matched on the message id, since JIDs may be LIDs. */
  memberReceipts(updates: BaileysEventMap['message-receipt.update']): void {
    for (const { key, receipt } of updates) {
      // A status's id is shared by its whole audience: its views name the viewer (status.ts).
      if (!key.id || key.remoteJid === 'status@broadcast') continue;
      const read = Number(receipt.readTimestamp ?? 0);
      const delivered = Number(receipt.receiptTimestamp ?? 0);
      if (read) this.out.emit('receipt', { messageId: key.id, status: 'read', at: new Date(read * 1000) });
      else if (delivered)
        this.out.emit('receipt', { messageId: key.id, status: 'delivered', at: new Date(delivered * 1000) });
    }
  }

  /** A message of a group chat, ours (`ownJid`) or a member's: the group's latest when newer. */
  lastMessage(m: WAMessage, ownJid: string): void {
    const chatId = m.key.remoteJid;
    if (!chatId || !isGroupJid(chatId) || !m.messageTimestamp) return;
    // Deletions and edits (protocol), reactions and stubs (joins, subject changes) are not messages of the chat.
    const content = normalizeMessageContent(m.message);
    if (m.messageStubType || !content || content.protocolMessage || content.reactionMessage) return;
    const timestamp = Number(m.messageTimestamp);
    const previous = this.lastMessages.get(chatId);
    if (previous && previous.timestamp > timestamp) return;
    const senderJid = m.key.fromMe
      ? ownJid
      : ((m.key as { participantAlt?: string }).participantAlt ?? m.key.participant ?? '');
    const last: IncomingLastMessage = {
      chatId,
      sender: digitsOfJid(senderJid) ?? senderJid,
      timestamp,
      body: messageBody(content),
    };
    this.lastMessages.set(chatId, last);
    this.out.emit('last-message', last);
  }
}
