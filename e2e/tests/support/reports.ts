import type { APIRequestContext, Page } from '@playwright/test';
import { expect, linkedUser } from '../../fixtures.ts';
import { finishedJobs, PNG_1X1, sendIndividual, silentWav } from './jobs.ts';

/** The zone the MIS Report specs run in (`test.use({ timezoneId: TZ })`). */
export const TZ = 'Asia/Kolkata';

export const LONG_TEXT = 'Diwali sale starts tomorrow at 10 am sharp';
export const SHORT_TEXT = 'Hi there';
/** Starts like a formula and carries markup: harmless in the table, the CSV and the print view. */
export const TRICKY_TEXT = '=SUM(A1) "q", <b>bold</b> & more';
export const ALL_JOBS = '8 jobs';
export const POLL = { pollName: 'Which day suits you best?', pollOptions: ['Monday', 'Friday', 'Sunday'] };
export const REPORT_HEADERS = [
  'Job ID',
  'Phone Number',
  'Total Messages',
  'Success',
  'Failed',
  'Created Date',
  'Message Type',
  'Content Preview',
];

export const report = (page: Page) => page.getByRole('table', { name: 'MIS Report jobs' });
/** A row by its job id, which the table shows cut to 8 characters (the full one as its title). */
export const jobRow = (page: Page, id: string) =>
  report(page)
    .getByRole('row')
    .filter({ has: page.getByTitle(id) });

/**
 * A user whose MIS Report holds eight finished jobs of every kind (long, short and tricky texts,
 * a poll, an image, media that is no image, a PDF and audio) sent from the account `phoneNumber`;
 * `ids` by kind.
 */
export async function reportUser(request: APIRequestContext, phoneNumber: string) {
  const ids: Record<string, string> = {};
  const { user, sessionId: accountId, token } = await linkedUser(request, { credits: 100, phoneNumber });
  ids.long = await sendIndividual(request, token, accountId, { content: LONG_TEXT });
  ids.short = await sendIndividual(request, token, accountId, { content: SHORT_TEXT });
  ids.tricky = await sendIndividual(request, token, accountId, { content: TRICKY_TEXT });
  ids.poll = await sendIndividual(request, token, accountId, {
    type: 'poll',
    content: { ...POLL, options: { allowMultipleAnswers: true } },
  });
  ids.image = await sendIndividual(request, token, accountId, {
    type: 'media',
    mime: 'image/png',
    data: PNG_1X1.toString('base64'),
    content: 'A tiny picture',
  });
  ids.corrupt = await sendIndividual(request, token, accountId, {
    type: 'media',
    mime: 'image/png',
    data: Buffer.from('this is not a picture').toString('base64'),
  });
  ids.pdf = await sendIndividual(request, token, accountId, {
    type: 'media',
    mime: 'application/pdf',
    data: Buffer.from('%PDF-1.4 price list').toString('base64'),
    fileName: 'price-list.pdf',
  });
  ids.audio = await sendIndividual(request, token, accountId, {
    type: 'media',
    mime: 'audio/wav',
    data: silentWav(),
  });
  const jobs = await finishedJobs(request, token, user.id);
  expect(jobs).toHaveLength(8);
  return { user, token, sessionId: accountId, ids, jobs };
}
