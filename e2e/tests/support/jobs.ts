import type { APIRequestContext, Page } from '@playwright/test';
import { expect } from '../../fixtures.ts';

export type Job = {
  id: string;
  sessionId: string;
  messageType: 'text' | 'media' | 'poll';
  status: string;
  progress: { completed: number; total: number; percentComplete: number };
  results: { success: number; failed: number; delivered: number; read: number };
  delivery: { delivered: number; read: number; replied: number; undelivered: number };
  createdAt: string;
  scheduledTime: string | null;
  messageContent: string;
  mediaMime: string | null;
  fileName: string | null;
};

/** Sends to phone numbers through the API, as the bulk page would; returns the job id. */
export async function sendIndividual(
  request: APIRequestContext,
  token: string,
  accountId: string,
  body: Record<string, unknown>,
): Promise<string> {
  const res = await request.post(`/api/session/${accountId}/sendIndividualMessage`, {
    headers: { authorization: `Bearer ${token}` },
    data: { chatIds: ['919822200002'], ...body },
  });
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { jobId: string }).jobId;
}

export async function jobsOf(request: APIRequestContext, token: string, userId: string): Promise<Job[]> {
  const res = await request.get(`/api/message-jobs/${userId}?limit=1000`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { jobs: Job[] }).jobs;
}

/**
 * Waits until `delivered` of the job's recipients are delivered, then `from` writes `text` to the
 * account (the simulator's inbound route), as a contact answers a message once it is there.
 */
export async function replyOnceDelivered(
  request: APIRequestContext,
  who: { token: string; userId: string; sessionId: string },
  job: { id: string; delivered: number },
  reply: { from: string; text: string },
): Promise<void> {
  await expect
    .poll(
      async () =>
        (await jobsOf(request, who.token, who.userId)).find((j) => j.id === job.id)?.delivery.delivered,
      { timeout: 30_000 },
    )
    .toBe(job.delivered);
  const inbound = await request.post(`/api/simulator/sessions/${who.sessionId}/inbound`, {
    headers: { authorization: `Bearer ${who.token}` },
    data: reply,
  });
  expect(inbound.ok(), await inbound.text()).toBe(true);
}

/** Waits until every job of the user has finished (the e2e server sends with no pause). */
export async function finishedJobs(
  request: APIRequestContext,
  token: string,
  userId: string,
): Promise<Job[]> {
  let jobs: Job[] = [];
  await expect
    .poll(
      async () => {
        jobs = await jobsOf(request, token, userId);
        return jobs.every((j) => j.status === 'completed' || j.status === 'failed');
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  return jobs;
}

/** The classic 1×1 PNG: a file to upload or serve; `.toString('base64')` for the send API. */
export const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** A short silent WAV (8 kHz, 8-bit, mono, 0.1 s). */
export function silentWav(): string {
  const samples = 800;
  const b = Buffer.alloc(44 + samples, 128);
  b.write('RIFF', 0);
  b.writeUInt32LE(36 + samples, 4);
  b.write('WAVE', 8);
  b.write('fmt ', 12);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(8000, 28);
  b.writeUInt16LE(1, 32);
  b.writeUInt16LE(8, 34);
  b.write('data', 36);
  b.writeUInt32LE(samples, 40);
  return b.toString('base64');
}

/**
 * Confirms a Retry Failed whose failures include a time-out: WhatsApp may have that message, so
 * the retry sends it again only once the user accepts that a copy may arrive twice.
 */
export async function confirmRetryWithCopy(page: Page, count: number): Promise<void> {
  const confirm = page.getByRole('dialog', { name: 'Confirm retry' });
  await confirm
    .getByRole('checkbox', { name: new RegExp(`Also send again the ${count} whose delivery is unknown`) })
    .check();
  await confirm.getByRole('button', { name: 'Retry Failed' }).click();
}

/** Opens 'Job Details: {id}' from the Message Jobs page; returns the dialog. */
export async function openJobDetails(page: Page, jobId: string) {
  await page.goto('/#/jobs');
  await page
    .getByRole('table', { name: 'Message jobs' })
    .getByRole('row')
    .filter({ has: page.getByTitle(jobId) })
    .getByRole('button', { name: 'View' })
    .click();
  return page.getByRole('dialog', { name: `Job Details: ${jobId}` });
}
