import { chatIdOfPhone, FAILURE_TEXTS, isPhoneJid, pollContent, type StoredPoll } from '@wa/contract';
import { and, eq, sql } from 'drizzle-orm';
import QRCode from 'qrcode';
import { createAccount } from '../accounts/service.ts';
import { simulatorAction } from '../accounts/simulator-orders.ts';
import type { AppContext } from '../context.ts';
import { addCredits, debitCredits } from '../credits/credits.ts';
import {
  accounts,
  contactLists,
  creditLedger,
  media,
  messageJobRecipients,
  messageJobs,
  waGroups,
} from '../db/schema.ts';
import { newId, sha256 } from '../ids.ts';
import { acceptSend } from '../messaging/accept/send.ts';
import type { Claimer } from '../messaging/engine/claim.ts';
import { backdate } from '../messaging/engine/job-transitions.ts';
import { failWhere, recordSent } from '../messaging/engine/transitions.ts';
import { acceptStatus } from '../messaging/status/accept.ts';
import { findUserById, findUserByUsername, firstAdmin } from '../users/repository.ts';
import { createUser } from '../users/service.ts';
import { seedChannelDemo } from './channel-seed.ts';
import { CLOUD_CAMPAIGN_KEPT, type DemoCloud, seedCloudDemo } from './cloud-seed.ts';
import { seedConsentDemo } from './consent-seed.ts';
import { seedInbox } from './inbox-seed.ts';
import { seedLidOnlyStop } from './people-seed.ts';
import { waitFor } from './wait.ts';

export const DEMO_USERS = {
  shop: {
    username: 'asha',
    password: 'asha-demo-2026',
    name: 'Asha Sarees',
    credits: 5000,
    bulk: true,
    multi: true,
  },
  small: {
    username: 'ravi',
    password: 'ravi-demo-2026',
    name: 'Ravi Kirana',
    credits: 20,
    bulk: false,
    multi: false,
  },
} as const;

const DAY = 86_400_000;

/** A deterministic pseudo-random sequence, so every demo database tells the same story. */
function sequence(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

/** What the history's contacts wrote back. */
const DEMO_REPLIES = [
  'Thank you!',
  'What time does the shop close today?',
  'Is the offer valid online too?',
  'Please send the price list',
  'Can I pay on delivery?',
];

type HistoryJob = {
  daysAgo: number;
  audience: 'groups' | 'individuals';
  type: 'text' | 'media' | 'poll';
  content: string;
  poll?: StoredPoll;
  recipients: Array<{ chatId: string; chatName: string; error: string | null }>;
};

/** The node written in the leases of the history's sends (they are recorded at once). */
const SEED_SENDER: Claimer = { nodeId: 'demo-seed', leaseMs: 60_000 };

/**
 * Writes one finished job of the past as the engine would have: the credits reserved, each
 * recipient claimed then recorded sent or failed by the engine's transitions (which count them,
 * refund the failed and finish the job), then every time moved back to when it happened.
 */
async function writeHistoryJob(
  ctx: AppContext,
  userId: string,
  accountId: string,
  job: HistoryJob,
  mediaId: string | null,
  rand: () => number,
) {
  const jobId = newId();
  const createdAt = new Date(Date.now() - job.daysAgo * DAY + Math.floor(rand() * 6 * 3_600_000));
  const finishedAt = new Date(createdAt.getTime() + job.recipients.length * 5_500);
  await ctx.db.transaction(async (tx) => {
    const before = await tx
      .select({ id: sql<number>`coalesce(max(${creditLedger.id}), 0)` })
      .from(creditLedger);
    const balance = await debitCredits(tx, userId, job.recipients.length, 'send', { jobId, actorId: userId });
    if (balance === null) throw new Error('demo seed: not enough credits for the history');
    await tx.insert(messageJobs).values({
      id: jobId,
      userId,
      accountId,
      audience: job.audience,
      messageType: job.type,
      content: job.poll ? pollContent(job.poll) : job.content,
      poll: job.poll ?? null,
      mediaId,
      mediaMime: mediaId ? 'image/png' : null,
      fileName: mediaId ? 'diwali-offer.png' : null,
      status: 'processing',
      total: job.recipients.length,
      createdAt,
      startedAt: createdAt,
    });
    // Claimed by the seed's own "node", with the error the send will meet.
    const rows = job.recipients.map((r, i) => {
      const sentAt = r.error ? null : new Date(createdAt.getTime() + (i + 1) * 5_500);
      // Realistic rates of a retail send: about 95% of the sent messages delivered, 60%
      // read, a few percent replied; the rest had no receipt a day later: undelivered.
      const deliveredAt = sentAt && rand() < 0.95 ? new Date(sentAt.getTime() + 1_500) : null;
      const readAt = deliveredAt && rand() < 0.63 ? new Date(deliveredAt.getTime() + 600_000) : null;
      const oneToOne = isPhoneJid(r.chatId);
      const repliedAt = oneToOne && readAt && rand() < 0.06 ? new Date(readAt.getTime() + 120_000) : null;
      const undeliveredAt = sentAt && !deliveredAt ? new Date(sentAt.getTime() + DAY) : null;
      return {
        row: {
          jobId,
          accountId,
          chatId: r.chatId,
          chatName: r.chatName,
          status: 'sending' as const,
          leaseOwner: SEED_SENDER.nodeId,
          dueAt: createdAt,
          attempts: 1,
          error: r.error,
          deliveredAt,
          readAt,
          repliedAt,
          replyText: repliedAt ? DEMO_REPLIES[Math.floor(rand() * DEMO_REPLIES.length)]! : null,
          undeliveredAt,
        },
        sentAt,
        messageId: sentAt ? `DEMO${sha256(`${jobId}${i}`).slice(0, 16).toUpperCase()}` : null,
      };
    });
    const ids = await tx
      .insert(messageJobRecipients)
      .values(rows.map((r) => r.row))
      .returning({ id: messageJobRecipients.id });
    const sent = rows.flatMap((r, i) =>
      r.messageId ? [{ id: Number(ids[i]!.id), messageId: r.messageId }] : [],
    );
    if (sent.length > 0) await recordSent(tx, SEED_SENDER, sent, []);
    await failWhere(
      tx,
      sql`r.job_id = ${jobId} AND r.status = 'sending'`,
      sql`r.error`,
      'Failed recipients',
      rows.length,
    );
    // Back to when it happened: the sends, the job's end, the ledger rows.
    const sentAts = rows.map((r) => r.sentAt);
    const seen = (at: keyof (typeof rows)[number]['row']) => rows.filter((r) => r.sentAt && r.row[at]).length;
    await backdate(tx, jobId, { ids: ids.map((x) => Number(x.id)), sentAt: sentAts }, finishedAt, {
      delivered: seen('deliveredAt'),
      read: seen('readAt'),
      replied: seen('repliedAt'),
      undelivered: seen('undeliveredAt'),
    });
    await tx
      .update(creditLedger)
      .set({
        createdAt: sql`case when ${creditLedger.reason} = 'send' then ${createdAt}::timestamptz else ${finishedAt}::timestamptz end`,
      })
      .where(and(eq(creditLedger.jobId, jobId), sql`${creditLedger.id} > ${before[0]!.id}`));
  });
}

/**
 * Seeds the demo database on its first start: two users beside the admin, a linked simulated
 * account with groups, a history of jobs over the past weeks and scheduled jobs ahead; with
 * `cloud` (a simulated Meta), also a Cloud API account and a template campaign through it.
 * Returns false when the data was already there (a second start seeds nothing).
 */
export async function seedDemo(ctx: AppContext, cloud?: DemoCloud): Promise<boolean> {
  if (await findUserByUsername(ctx.db, DEMO_USERS.shop.username)) return false;
  const admin = await firstAdmin(ctx.db);
  const rand = sequence(2026);

  // The history costs credits: the opening grant covers it so that the balance ends where promised.
  const shop = await createUser(ctx.db, {
    username: DEMO_USERS.shop.username,
    password: DEMO_USERS.shop.password,
    name: DEMO_USERS.shop.name,
    role: 'USER',
    credits: 0,
    isBulkMessagingEnabled: DEMO_USERS.shop.bulk,
    isMultisessionSupported: DEMO_USERS.shop.multi,
    managedBy: admin?.id ?? null,
    actorId: admin?.id ?? null,
  });
  await createUser(ctx.db, {
    username: DEMO_USERS.small.username,
    password: DEMO_USERS.small.password,
    name: DEMO_USERS.small.name,
    role: 'USER',
    credits: DEMO_USERS.small.credits,
    isBulkMessagingEnabled: DEMO_USERS.small.bulk,
    isMultisessionSupported: DEMO_USERS.small.multi,
    managedBy: admin?.id ?? null,
    actorId: admin?.id ?? null,
  });

  // A linked simulated account: created as a person would, then its QR "scanned".
  const shopRow = (await findUserById(ctx.db, shop.id))!;
  const { accountId } = await createAccount(ctx, shopRow, {
    phoneNumber: '919876543210',
    sessionName: 'Asha Sarees Shop',
  });
  await waitFor('the first QR', async () => {
    const [row] = await ctx.db
      .select({ qr: accounts.qr })
      .from(accounts)
      .where(eq(accounts.accountId, accountId));
    return row?.qr;
  });
  await simulatorAction(ctx, shopRow, accountId, 'link');
  const groups = await waitFor('the groups of the linked account', async () => {
    const rows = await ctx.db
      .select({
        id: waGroups.groupId,
        subject: waGroups.subject,
        announce: waGroups.announce,
        isAdmin: waGroups.isAdmin,
      })
      .from(waGroups)
      .where(eq(waGroups.accountId, accountId));
    return rows.length > 0 ? rows : null;
  });
  const sendable = groups.filter((g) => !g.announce || g.isAdmin);
  const announceOnly = groups.find((g) => g.announce && !g.isAdmin);

  const numbers = Array.from(
    { length: 40 },
    (_, i) => `9198${String(10_000_000 + i * 7919).padStart(8, '0')}`,
  );
  const image = await QRCode.toBuffer('https://example.com/diwali-offer', { type: 'png', width: 320 });
  const mediaId = sha256(image);
  await ctx.db
    .insert(media)
    .values({ id: mediaId, mime: 'image/png', size: image.length, bytes: image })
    .onConflictDoNothing();

  const texts = [
    'Diwali sale starts tomorrow! 30% off on all silk sarees. Visit us at MG Road.',
    'New arrivals: Kanjeevaram and Banarasi collections are in store this week.',
    'Shop closed on Sunday for stock taking. See you on Monday!',
    'Thank you for shopping with us. Show this message for 10% off your next visit.',
    'Wedding season offer: free blouse stitching on sarees above ₹5,000.',
  ];
  const plan: HistoryJob[] = [];
  for (let i = 0; i < 14; i++) {
    const daysAgo = 27 - i * 2;
    const kind = i % 5 === 3 ? 'poll' : i % 5 === 1 ? 'media' : 'text';
    const toGroups = i % 3 !== 2;
    let recipients: HistoryJob['recipients'];
    if (toGroups) {
      const chosen = sendable.slice(0, 4 + (i % Math.max(1, sendable.length - 3)));
      recipients = chosen.map((g) => ({ chatId: g.id, chatName: g.subject, error: null }));
      if (announceOnly && i % 4 === 0) {
        recipients.push({
          chatId: announceOnly.id,
          chatName: announceOnly.subject,
          error: FAILURE_TEXTS.notAdmin,
        });
      }
    } else {
      const chosen = numbers.slice(i, i + 12);
      recipients = chosen.map((n) => ({ chatId: chatIdOfPhone(n), chatName: n, error: null }));
      recipients.push({
        chatId: chatIdOfPhone('919811110000'),
        chatName: '919811110000',
        error: FAILURE_TEXTS.notOnWhatsApp,
      });
      // A job hit by a lost connection: retryable from the Jobs page.
      if (i === 11) for (const r of recipients.slice(0, 4)) r.error = 'Session is not connected';
    }
    plan.push({
      daysAgo,
      audience: toGroups ? 'groups' : 'individuals',
      type: kind,
      content:
        kind === 'media' ? 'Our Diwali offer — tap to see the full catalogue' : texts[i % texts.length]!,
      poll:
        kind === 'poll'
          ? {
              pollName: 'Which collection should we bring next?',
              pollOptions: ['Kanjeevaram silk', 'Chanderi cotton', 'Banarasi', 'Designer party wear'],
              options: { allowMultipleAnswers: i % 2 === 0 },
            }
          : undefined,
      recipients,
    });
  }
  const spend = plan.reduce((n, j) => n + j.recipients.filter((r) => !r.error).length, 0);
  // The two scheduled group jobs below, and the status to the regular customers (7 after the opt-out).
  // And the Cloud API campaign's kept recipients (cloud-seed.ts).
  const ahead =
    Math.min(6, sendable.length) +
    Math.min(4, sendable.length) +
    STATUS_AUDIENCE +
    (cloud ? CLOUD_CAMPAIGN_KEPT : 0);
  await addCredits(ctx.db, shop.id, DEMO_USERS.shop.credits + spend + ahead, 'grant', {
    actorId: admin?.id ?? null,
    note: 'Opening balance',
  });
  await ctx.db
    .update(creditLedger)
    .set({ createdAt: new Date(Date.now() - 30 * DAY) })
    .where(and(eq(creditLedger.userId, shop.id), eq(creditLedger.reason, 'grant')));
  for (const job of plan)
    await writeHistoryJob(ctx, shop.id, accountId, job, job.type === 'media' ? mediaId : null, rand);
  await seedConsentDemo(ctx.db, shop, numbers);
  await seedLidOnlyStop(ctx, shop.id, accountId);
  await seedInbox(ctx, shop.id, accountId);

  // Scheduled ones ahead: real jobs that the engine sends at their time.
  const shopNow = (await findUserById(ctx.db, shop.id))!;
  await seedChannelDemo(ctx, shopNow, accountId);
  await acceptSend(
    ctx,
    shopNow,
    accountId,
    {
      chatIds: sendable.slice(0, 6).map((g) => g.id),
      type: 'string',
      content: 'Reminder: our annual clearance sale begins this Saturday at 10 am.',
      scheduleTime: new Date(Date.now() + 3 * DAY).toISOString(),
    },
    'groups',
  );
  await acceptSend(
    ctx,
    shopNow,
    accountId,
    {
      chatIds: sendable.slice(0, 4).map((g) => g.id),
      type: 'poll',
      content: {
        pollName: 'Which day suits you for the trunk show?',
        pollOptions: ['Friday', 'Saturday', 'Sunday'],
        options: { allowMultipleAnswers: false },
      },
      scheduleTime: new Date(Date.now() + 9 * DAY).toISOString(),
    },
    'groups',
  );
  // A Status to the regular customers: posted as the demo starts; the simulated
  // viewers' receipts make its 'Viewed by N of M'.
  const [regulars] = await ctx.db
    .select({ id: contactLists.id })
    .from(contactLists)
    .where(and(eq(contactLists.userId, shop.id), eq(contactLists.name, 'Regular customers')));
  if (regulars)
    await acceptStatus(ctx, shopNow, accountId, {
      type: 'text',
      content: 'Diwali offers are here: 20% off all sarees this week',
      backgroundColor: '#FF7A00',
      font: 8,
      audience: { contactListIds: [regulars.id] },
    });
  if (cloud && regulars) await seedCloudDemo(ctx, shopNow, cloud, regulars.id);
  return true;
}

/** The status's audience: the regular customers' list less its opted-out number (consent-seed.ts). */
const STATUS_AUDIENCE = 7;
