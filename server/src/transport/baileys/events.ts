import type { EventEmitter } from 'node:events';
import { addressOfChatId } from '@wa/contract';
import { type BaileysEventMap, getHistoryMsg, proto } from 'baileys';
import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { TransportEventMap } from '../types.ts';
import type { ChatTimers } from './chat-timers.ts';
import type { ChatEvents } from './chats.ts';
import { takeBootstrap } from './history.ts';
import type { HeldLidTexts } from './lid-texts.ts';
import type { SocketLifecycle } from './lifecycle.ts';
import type { RestrictionTracker } from './restrictions.ts';
import { ackRefusal, RESTRICTED_463 } from './send.ts';
import type { BaileysSocket } from './socket.ts';
import { statusViews } from './status.ts';

type Emitter = Pick<EventEmitter<TransportEventMap>, 'emit'>;

/**
 * What a socket of the account reports, handed to the part that keeps it: texts, group changes
 * and last messages to chats.ts, quotas and timelocks to restrictions.ts, LID mappings to
 * lid-texts.ts, Status views and refused sends to the engine. The lifecycle keeps its own
 * handlers (creds, connection) on the same socket.
 */
export class SocketEvents {
  /** Message ids whose error status was already reported (rc14 may report one twice: upsert and update). */
  private readonly failedIds = new LRUCache<string, true>({ max: 1000 });

  constructor(
    private readonly out: Emitter,
    private readonly deps: {
      accountId: string;
      log: FastifyBaseLogger;
      lifecycle: Pick<SocketLifecycle, 'sock' | 'generation' | 'me'>;
      restrictions: RestrictionTracker;
      chats: ChatEvents;
      lidTexts: HeldLidTexts;
      timers: ChatTimers;
      /** A message whose send awaits (or had) its server ack: that send reports the refusal (acks.ts). */
      ownsOutcome: (messageId: string) => boolean;
      /** What the product downloads itself goes through the account's proxy with these (proxy.ts). */
      fetchOptions?: RequestInit;
    },
  ) {}

  /** The handlers on a new socket; `generation` tells its events from a later socket's. */
  listen(sock: BaileysSocket, generation: number): void {
    const { lifecycle, restrictions, chats, lidTexts, timers, log, accountId } = this.deps;
    const ev = sock.ev;
    ev.on('connection.update', (u) => {
      if (u.reachoutTimeLock && generation === lifecycle.generation)
        restrictions.noteTimelock(u.reachoutTimeLock);
    });
    ev.on('messages.upsert', ({ messages, type }) => {
      for (const m of messages) {
        // Live messages come as 'notify'; those WhatsApp held while this device was offline as
        // 'append' (Socket/messages-recv.js handleMessage: node.attrs.offline ? 'append' : 'notify').
        if ((type === 'notify' || type === 'append') && !m.key.fromMe) {
          chats.revealedPerson(generation, m);
          chats.incomingText(generation, m);
        }
        // A one-to-one chat's disappearing timer, as its latest message shows it (chat-timers.ts).
        if (type === 'notify' || type === 'append') timers.fromMessage(m);
        // rc14 holds our own upsert 100 ms in its event buffer (Socket/chats.js upsertMessage is
        // a createBufferedFunction), and what arrives for that message meanwhile is merged into
        // it, never emitted (Utils/event-buffer.js append): a messages.update (an error ack, a
        // delivery or read) into its status, a message-receipt.update (a group member, a status
        // viewer) into its userReceipt. Phones that answer at once are only seen here.
        if (m.key.fromMe && m.key.id) {
          if (m.status != null)
            chats.statusUpdates(
              [{ key: m.key, update: { status: m.status, messageStubParameters: m.messageStubParameters } }],
              (id, code) => this.sendError(generation, id, code),
            );
          if (m.userReceipt?.length)
            this.receipts(
              sock,
              m.userReceipt.map((receipt) => ({ key: m.key, receipt })),
            );
        }
        const history = m.key.fromMe && m.message ? getHistoryMsg(m.message) : undefined;
        if (history?.syncType === proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP)
          void takeBootstrap(
            sock,
            history,
            log.child({ accountId }),
            (c) => timers.fromHistory(c),
            this.deps.fetchOptions,
          );
        chats.lastMessage(m, lifecycle.me.id);
      }
    });
    ev.on('messages.update', (updates) =>
      chats.statusUpdates(updates, (id, code) => this.sendError(generation, id, code)),
    );
    ev.on('message-receipt.update', (updates) => this.receipts(sock, updates));
    ev.on('groups.upsert', (metas) => chats.groupsUpsert(metas));
    ev.on('groups.update', (updates) => chats.groupsUpdate(generation, updates));
    ev.on('group-participants.update', (update) => chats.participantsUpdate(generation, update));
    ev.on('message-capping.update', (info) => restrictions.noteQuota(info));
    ev.on('lid-mapping.update', ({ lid, pn }) => {
      const lidAddress = addressOfChatId(lid);
      const pnAddress = addressOfChatId(pn);
      if (lidAddress?.kind === 'lid' && pnAddress?.kind === 'phone')
        this.out.emit('same-person', [lidAddress, pnAddress]);
      lidTexts.mapped(lid, pn).catch((err) => log.warn({ err, accountId }, 'held LID texts failed'));
    });
  }

  /** Receipts per group member and per status viewer. */
  private receipts(sock: BaileysSocket, updates: BaileysEventMap['message-receipt.update']): void {
    this.deps.chats.memberReceipts(updates);
    void statusViews(sock, updates).then((views) => {
      for (const v of views) this.out.emit('receipt', v);
    });
  }

  /**
   * WhatsApp refused a sent message (Socket/messages-recv.js handleBadAck: status ERROR with the
   * error code first in messageStubParameters). 463 restricts new chats: rc14 itself does not ask
   * until when for it (its 463 branch is the tctoken one), so the transport asks.
   */
  private sendError(generation: number, messageId: string, code: string | undefined): void {
    if (this.failedIds.has(messageId)) return;
    this.failedIds.set(messageId, true);
    // A send that awaits (or had) this message's server ack reports the refusal itself (acks.ts).
    const reported = this.deps.ownsOutcome(messageId);
    if (code === '463') {
      if (!reported) this.out.emit('send-failed', { messageId, code: 'restricted', reason: RESTRICTED_463 });
      const { lifecycle, restrictions, log, accountId } = this.deps;
      // Asked once the growing pause is counted (a write), so that WhatsApp's answer comes after it.
      void restrictions
        .restricted463()
        .catch(() => {})
        .then(() => {
          const sock = lifecycle.sock;
          if (!sock || generation !== lifecycle.generation) return;
          // Its answer comes back as connection.update reachoutTimeLock (Socket/socket.js).
          return sock
            .fetchAccountReachoutTimelock()
            .catch((err) => log.warn({ err, accountId }, 'could not read the reach-out timelock'));
        });
      return;
    }
    if (reported) return;
    const refusal = ackRefusal(code);
    this.out.emit('send-failed', { messageId, code: 'unknown', reason: refusal.message });
  }
}
