import { deflateSync } from 'node:zlib';
import { proto } from 'baileys';

/** An INITIAL_BOOTSTRAP as WhatsApp sends it (WAProto HistorySync), deflated. */
export function bootstrapHistory(conversations: number, messagesEach: number) {
  const sync = proto.HistorySync.create({
    syncType: proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP,
    conversations: Array.from({ length: conversations }, (_, i) => {
      const pn = `91980${String(i).padStart(7, '0')}@s.whatsapp.net`;
      const lid = `${100_000_000_000 + i}@lid`;
      // Half the chats are addressed by LID (with their number), half by number (with their LID).
      const byLid = i % 2 === 0;
      return {
        id: byLid ? lid : pn,
        ...(byLid ? { pnJid: pn } : { lidJid: lid }),
        displayName: `Contact ${i}`,
        messages: Array.from({ length: messagesEach }, (_, j) => ({
          msgOrderId: j,
          message: {
            key: { remoteJid: byLid ? lid : pn, fromMe: j % 2 === 0, id: `M${i}-${j}` },
            message: { conversation: `Message ${j} of a chat, long enough to weigh something `.repeat(3) },
            messageTimestamp: 1_700_000_000 + j,
          },
        })),
      };
    }),
    phoneNumberToLidMappings: [{ pnJid: '919899999999@s.whatsapp.net', lidJid: '199999999999@lid' }],
  });
  return { sync, deflated: deflateSync(proto.HistorySync.encode(sync).finish()) };
}
