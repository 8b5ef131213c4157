import { createHash } from 'node:crypto';
import { isPhoneJid } from '@wa/contract';
import { decryptPollVote, getKeyAuthor, jidNormalizedUser, type proto, type WAMessageKey } from 'baileys';
import type { SentPollLookup } from '../sent-polls.ts';

/** What reading a vote needs of the account: its own addresses, its LID mapping, the polls it sent. */
export type VoteReader = {
  me: () => { id: string; lid: string | null };
  /** The LID rc14 stored for a phone-number JID, null when none. */
  lidOf: (pnJid: string) => Promise<string | null>;
  polls: SentPollLookup;
};

const bare = (jid: string | null | undefined): string | null => (jid ? jidNormalizedUser(jid) || null : null);

/**
 * The options a vote on one of the account's polls chose, in the poll's order ([] when the person
 * took their vote back); null when the poll is not one the product sent with its own secret, or
 * the vote does not open with it.
 *
 * rc14 hands votes over encrypted; its own decryption (Utils/process-message.js, commented out)
 * opens them with the poll's messageSecret, the poll's id and two addresses: the creator's
 * (getKeyAuthor of the poll's key: the account itself) and the voter's (getKeyAuthor of the vote's
 * key: participantAlt, remoteJidAlt, participant, remoteJid, so a number beside a LID first).
 * A client may use LIDs for both instead (whatsmeow msgsecret.go EncryptPollVote: its own LID as
 * the voter, the poll's sender as it arrived), so the LID forms are tried after rc14's; AES-GCM's
 * tag tells which one the vote was made with. Each selected option is the SHA-256 of its name
 * (rc14 Utils/messages.js getAggregateVotesInPollMessage).
 */
export async function readPollVote(
  update: proto.Message.IPollUpdateMessage,
  key: WAMessageKey,
  reader: VoteReader,
): Promise<string[] | null> {
  const pollId = update.pollCreationMessageKey?.id;
  const vote = update.vote;
  if (!pollId || !vote?.encPayload || !vote.encIv) return null;
  const poll = await reader.polls(pollId);
  if (!poll) return null;
  const me = reader.me();
  const creators = unique([bare(me.id), bare(me.lid)]);
  const author = getKeyAuthor(key);
  const voters = unique([
    bare(author),
    bare(key.remoteJid),
    isPhoneJid(bare(author) ?? '') ? await reader.lidOf(bare(author)!) : null,
  ]);
  for (const pollCreatorJid of creators)
    for (const voterJid of voters) {
      let chosen: Uint8Array[];
      try {
        chosen = decryptPollVote(vote, {
          pollEncKey: poll.secret,
          pollCreatorJid,
          pollMsgId: pollId,
          voterJid,
        }).selectedOptions;
      } catch {
        continue; // not the addresses this vote was made with
      }
      const hashes = new Set(chosen.map((h) => Buffer.from(h).toString('hex')));
      return poll.options.filter((o) => hashes.has(createHash('sha256').update(o).digest('hex')));
    }
  return null;
}

function unique(jids: Array<string | null>): string[] {
  return [...new Set(jids.filter((j): j is string => !!j))];
}
