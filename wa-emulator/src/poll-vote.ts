import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import { aesEncryptGCM, proto } from 'baileys';
import type { Phone } from './phone.ts';
import type { Account } from './world.ts';

/** A poll as a voter's phone holds it: its id, its message secret, and who sent it, as it arrived. */
export type PollToVote = { id: string; secret: Uint8Array; creatorJid: string };

/**
 * The poll `id` this phone received, read from its inbox: the secret its creator put in
 * messageContextInfo (rc14 Utils/messages.js generateWAMessageContent), and the creator's address
 * in the form the chat uses: the sender's LID when the poll came to this person's LID, else its
 * number (whatsmeow keeps a poll's secret under the sender it arrived from, msgsecret.go).
 */
export function receivedPoll(voter: Account, id: string, creator: Account): PollToVote {
  const poll = voter.inbox.find((m) => m.id === id);
  const secret = poll?.message.messageContextInfo?.messageSecret;
  if (!poll || !secret) throw new Error(`${voter.phone} has no poll ${id}`);
  const creatorJid = poll.chat.endsWith('@lid') ? `${creator.lid}@lid` : `${creator.phone}@s.whatsapp.net`;
  return { id, secret, creatorJid };
}

/**
 * The person votes on a poll of `to`'s (an empty `options`: takes the vote back), as a WhatsApp
 * client does (whatsmeow msgsecret.go BuildPollVote → EncryptPollVote): the chosen options as
 * SHA-256 hashes of their names in a PollVoteMessage, encrypted with AES-256-GCM under a key
 * derived by HKDF-SHA256 (no salt) from the poll's secret with the poll's id, its creator's
 * address, the voter's address and 'Poll Vote', with `<poll id>\0<voter>` as additional data; the
 * voter's address is its own LID (whatsmeow getOwnLID), or with `voterAs: 'pn'` its number. The
 * vote goes as a pollUpdateMessage naming the poll's key, from the person's number (or LID:
 * `fromLid`). Returns the vote's message id.
 */
export async function vote(
  phone: Phone,
  to: string,
  poll: PollToVote,
  options: string[],
  how: { fromLid?: boolean; voterAs?: 'lid' | 'pn' } = {},
): Promise<string> {
  const me = phone.account;
  const voterJid = how.voterAs === 'pn' ? `${me.phone}@s.whatsapp.net` : `${me.lid}@lid`;
  const plaintext = proto.Message.PollVoteMessage.encode({
    selectedOptions: options.map((o) => createHash('sha256').update(o).digest()),
  }).finish();
  const info = Buffer.concat([Buffer.from(poll.id + poll.creatorJid + voterJid), Buffer.from('Poll Vote')]);
  const key = Buffer.from(hkdfSync('sha256', poll.secret, Buffer.alloc(0), info, 32));
  const iv = randomBytes(12);
  const encPayload = aesEncryptGCM(plaintext, key, iv, Buffer.from(`${poll.id}\u0000${voterJid}`));
  const from = how.fromLid ? `${me.lid}@lid` : `${me.phone}@s.whatsapp.net`;
  return phone.deliver(
    to,
    {
      pollUpdateMessage: {
        pollCreationMessageKey: { remoteJid: poll.creatorJid, fromMe: false, id: poll.id },
        vote: { encPayload, encIv: iv },
        senderTimestampMs: Date.now(),
      },
    },
    from,
  );
}
