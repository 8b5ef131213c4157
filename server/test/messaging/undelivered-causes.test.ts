import { describe, expect, it } from 'vitest';
import { UNDELIVERED_REASONS } from '../../src/messaging/messages.ts';
import { baileysRigFor } from '../fakes/baileys-rig.ts';
import { jobDetails, recipientsOf, waitForJobEnd } from '../fakes/messaging.ts';
import { bearer, DB_KINDS } from '../helpers.ts';
import { waitFor } from '../wait.ts';

type Detail = {
  chatId: string;
  status: string;
  error: string | null;
  undeliveredAt: string | null;
  undeliveredReason: string | null;
};
type Job = { status: string; delivery: { undelivered: number }; details: Detail[] };

/**
 * The causes of an undelivered message that the account learns after
 * its send, through BaileysTransport over fake rc14 sockets (test/fakes/baileys-socket.ts): a
 * number that has left WhatsApp (a later lookup of it), and a message whose recipient could not
 * decrypt it, rc14's retries given up. Shown in Job Details as the other causes are.
 */
describe.each(DB_KINDS)(
  'why a sent message went undelivered, learned by the Baileys transport, on %s',
  (kind) => {
    const rig = baileysRigFor(kind, {
      dispatch: true,
      // Undelivered 1.5 s after the send; an answer about a number trusted 300 ms.
      env: { UNDELIVERED_AFTER_MS: '1500' },
      transport: { onWhatsAppTtlMs: { found: 300, missing: 300 } },
    });
    const { connected } = rig;
    async function send(s: { token: string; accountId: string }, chatIds: string[]): Promise<string> {
      const res = await rig.t.app.inject({
        method: 'POST',
        url: `/api/session/${s.accountId}/sendIndividualMessage`,
        headers: bearer(s.token),
        payload: { chatIds, content: 'Hello' },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().jobId as string;
    }
    const details = async (token: string, jobId: string): Promise<Job> => jobDetails(rig.t.app, token, jobId);
    const byNumber = (job: Job, n: string) => job.details.find((d) => d.chatId.startsWith(n))!;

    it('a number that has left WhatsApp: the message sent to it before, never confirmed, is undelivered as not on WhatsApp', async () => {
      const s = await connected('Left WhatsApp', 10);
      // On WhatsApp at the first send (the fake's numbers ending 0000 are not, unless they joined).
      s.sock.joined.add('919833330000');
      const first = await send(s, ['919833330000', '919833331111']);
      expect(await waitForJobEnd(rig.t.app, s.token, first)).toMatchObject({ results: { success: 2 } });
      // The number leaves WhatsApp; once the answer is no longer trusted, a second job asks again.
      s.sock.joined.delete('919833330000');
      await new Promise((r) => setTimeout(r, 400));
      const second = await send(s, ['919833330000']);
      const failed = await waitForJobEnd(rig.t.app, s.token, second);
      expect(failed.details[0]).toMatchObject({ status: 'failed', error: 'Not on WhatsApp' });
      // Neither message of the first job was confirmed: both undelivered, one with the cause learned.
      const job = await waitFor('the first job undelivered', async () => {
        const j = await details(s.token, first);
        return j.delivery.undelivered === 2 ? j : null;
      });
      expect(byNumber(job, '919833330000')).toMatchObject({
        status: 'sent',
        undeliveredReason: UNDELIVERED_REASONS.notOnWhatsApp,
      });
      expect(byNumber(job, '919833330000').undeliveredAt).not.toBeNull();
      expect(byNumber(job, '919833331111').undeliveredReason).toBeNull();
    });

    it('a message whose recipient asked for it again until rc14 gave up is undelivered as not decrypted; the others keep no cause', async () => {
      const s = await connected('Retries', 10);
      const jobId = await send(s, ['919844440001', '919844440002']);
      await waitForJobEnd(rig.t.app, s.token, jobId);
      const [asked] = await recipientsOf(rig.t.db, jobId);
      // The phone asks three times: rc14 sends it again twice, then no more.
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await s.sock.retryReceipt(asked!.messageId!, asked!.chatId));
      expect(answers).toEqual([true, true, false]);
      const job = await waitFor('both undelivered', async () => {
        const j = await details(s.token, jobId);
        return j.delivery.undelivered === 2 && byNumber(j, '919844440001').undeliveredReason ? j : null;
      });
      expect(byNumber(job, '919844440001').undeliveredReason).toBe(UNDELIVERED_REASONS.decryptGaveUp);
      expect(byNumber(job, '919844440002').undeliveredReason).toBeNull();
    });
  },
);
