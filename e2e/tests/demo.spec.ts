import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from '../fixtures.ts';

/**
 * `npm run demo` as a newcomer meets it: a fresh directory, the printed credentials, the
 * banner, a linked account and a history to look at; a second start keeps the data.
 * With SCREENSHOTS_DIR set (`npm run screenshots`), it also saves the README pictures.
 */
const repoRoot = path.resolve(import.meta.dirname, '../..');
// Beside the run's own ports (E2E_PORT, its fake Graph API at +500 and +501): runs on other ports do not meet.
const PORT = process.env.E2E_PORT ? Number(process.env.E2E_PORT) + 502 : 3200;
const URL = `http://localhost:${PORT}`;
const shots = process.env.SCREENSHOTS_DIR;

type Demo = { proc: ChildProcess; output: string };

async function startDemo(dataDir: string): Promise<Demo> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/src/demo.ts'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(PORT),
      HOST: '127.0.0.1',
      DEMO_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      // the web app this run built (see playwright.config.ts)
      ...(process.env.E2E_WEB_DIR ? { WEB_DIST_DIR: process.env.E2E_WEB_DIR } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const demo: Demo = { proc, output: '' };
  proc.stdout?.on('data', (d) => {
    demo.output += String(d);
  });
  proc.stderr?.on('data', (d) => {
    demo.output += String(d);
  });
  await expect.poll(() => demo.output, { timeout: 90_000, intervals: [500] }).toContain('Sign in as:');
  return demo;
}

async function stopDemo(demo: Demo) {
  if (demo.proc.exitCode !== null) return;
  const exited = new Promise((r) => demo.proc.once('exit', r));
  demo.proc.kill('SIGTERM');
  await exited;
}

const credentialsOf = (output: string, username: string) => {
  const m = new RegExp(`username: ${username}\\s+password: (\\S+)`).exec(output);
  if (!m) throw new Error(`no password printed for ${username}:\n${output}`);
  return m[1]!;
};

async function shot(page: Page, name: string) {
  if (!shots) return;
  await page.waitForTimeout(400);
  await page.screenshot({ path: path.join(shots, `${name}.png`) });
}

test('npm run demo: printed credentials, banner, a linked account, real figures, every kind of job; a second start keeps the data', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wa-demo-'));
  if (shots) fs.mkdirSync(shots, { recursive: true });
  let demo = await startDemo(dataDir);
  try {
    expect(demo.output).toContain('DEMO MODE: messages go to a simulated WhatsApp network');
    expect(demo.output).toContain('(demo data created now)');
    const password = credentialsOf(demo.output, 'asha');

    await page.goto(`${URL}/#/login`);
    await expect(page.getByText('Demo mode: messages go to a simulated WhatsApp network')).toBeVisible();
    await page.getByLabel('Username').fill('asha');
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Login' }).click();
    await page.waitForURL(/#\/dashboard$/, { timeout: 30_000 });

    // The dashboard has real figures.
    const sent = page.getByRole('group', { name: 'Messages Sent' });
    await expect(sent).not.toHaveText('Messages Sent0');
    await expect(sent).toHaveText(/Messages Sent[1-9]/);
    await expect(page.getByRole('group', { name: 'Account Balance' })).toHaveText('Account Balance5,000');
    await expect(page.getByRole('group', { name: 'Total Groups' })).toHaveText(/Total Groups[1-9]/);
    await expect(page.getByText('Demo mode: messages go to a simulated WhatsApp network')).toBeVisible();
    await shot(page, 'dashboard');

    // A CONNECTED account.
    await page.goto(`${URL}/#/instances`);
    const instances = page.getByRole('table', { name: 'Instances' });
    await expect(instances.getByRole('row', { name: /Asha Sarees Shop/ })).toContainText('CONNECTED');
    // And a Cloud API account, connected to the demo's simulated Meta.
    await expect(instances.getByRole('row', { name: /Asha Sarees \(Cloud API\)/ })).toContainText(
      'CONNECTED',
    );
    if (shots) {
      await page.getByRole('button', { name: 'ADD NEW' }).click();
      const add = page.getByRole('dialog', { name: 'Add New Instance' });
      await add.getByLabel('Phone Number').fill('919876500000');
      await add.getByLabel('Session Name').fill('Godown phone');
      await add.getByRole('button', { name: 'Create Instance' }).click();
      const qr = page.getByRole('dialog', { name: /Connect WhatsApp/ });
      await expect(qr.getByRole('img', { name: 'QR code to link WhatsApp' })).toBeVisible({
        timeout: 20_000,
      });
      await shot(page, 'instances-qr');
      await page.keyboard.press('Escape');
    }

    // Jobs in the tabs: completed, failed (with retryable recipients) and scheduled ones.
    await page.goto(`${URL}/#/jobs`);
    const jobs = page.getByRole('table', { name: 'Message jobs' });
    await expect(jobs.getByRole('row').nth(1)).toBeVisible();
    for (const tab of ['Completed', 'Failed', 'Scheduled']) {
      await page.getByRole('tab', { name: tab }).click();
      await expect(jobs.getByRole('row').nth(1), tab).toBeVisible();
    }
    await page.getByRole('tab', { name: 'Failed' }).click();
    await expect(jobs.getByRole('button', { name: /Retry Failed/ }).first()).toBeVisible();
    await page.getByRole('tab', { name: 'Scheduled' }).click();
    await expect(jobs).toContainText('Scheduled ');
    await page.getByRole('tab', { name: 'All Jobs' }).click();
    await shot(page, 'jobs');
    // A scheduled job opened for editing: its groups by name, its time, its message.
    await page.getByRole('tab', { name: 'Scheduled' }).click();
    await jobs.getByRole('button', { name: 'Edit', exact: true }).first().click();
    const edit = page.getByRole('dialog', { name: 'Edit job' });
    await expect(edit.getByLabel('Schedule time')).toBeVisible();
    await shot(page, 'edit-job');
    await edit.getByRole('button', { name: 'Cancel' }).click();
    await expect(edit).toHaveCount(0);

    // The report has rows.
    await page.goto(`${URL}/#/reports`);
    const report = page.getByRole('table', { name: 'MIS Report jobs' });
    await expect(report.getByRole('row').nth(5)).toBeVisible();
    // The Cloud API campaign with Meta's category and its charge for the delivered messages.
    await expect(report).toContainText(/marketing · ₹[1-9]/);
    await shot(page, 'mis-report');

    // People write to the shop's linked phone (the simulated network's inbound route): their
    // conversations in the Inbox, the unread count beside it in the sidebar.
    const headers = { authorization: `Bearer ${await page.evaluate(() => sessionStorage.getItem('token'))}` };
    const accounts = (await (await page.request.get(`${URL}/api/sessions`, { headers })).json()) as {
      sessions: { sessionId: string; sessionName: string }[];
    };
    const shop = accounts.sessions.find((s) => s.sessionName === 'Asha Sarees Shop')!.sessionId;
    for (const [from, text] of [
      ['919810007919', 'Is the Kanjeevaram in the photo available in maroon?'],
      ['919810015838', 'What time do you open on Sunday?'],
      ['919810000000', 'Please send the price list for wedding sarees'],
    ]) {
      const res = await page.request.post(`${URL}/api/simulator/sessions/${shop}/inbound`, {
        headers,
        data: { from, text },
      });
      expect(res.ok(), await res.text()).toBe(true);
    }
    await page.goto(`${URL}/#/inbox`);
    const inbox = page.getByRole('table', { name: 'Conversations' });
    await expect(inbox.getByRole('row', { name: /919810000000/ })).toContainText('1 unread');
    await expect(
      page
        .getByRole('navigation', { name: 'Main navigation' })
        .getByRole('link', { name: /^Inbox [3-9] unread$/ }),
    ).toBeVisible();
    await shot(page, 'inbox');
    await inbox
      .getByRole('row', { name: /919810000000/ })
      .getByRole('button')
      .first()
      .click();
    await expect(page.getByRole('list', { name: 'Messages' })).toContainText('Please send the price list');
    await page
      .getByRole('textbox', { name: 'Answer' })
      .fill('Sending it now: sarees from ₹4,999, with free blouse stitching.');
    await shot(page, 'inbox-thread');

    await page.goto(`${URL}/#/groups`);
    await expect(page.getByRole('table', { name: 'Group chats' }).getByRole('row').nth(3)).toBeVisible();
    await shot(page, 'groups');

    // Add New Group, filled in: five are added at once, the others get the invite link.
    await page.goto(`${URL}/#/groups/new`);
    await page.getByLabel('Group name').fill('Wedding season customers');
    await page
      .getByLabel("Members' phone numbers (one a line)")
      .fill(Array.from({ length: 7 }, (_, i) => `9198000${String(71001 + i)}`).join('\n'));
    await expect(page.getByRole('status').filter({ hasText: 'added now' })).toHaveText(
      '5 numbers added now, 2 numbers by the invite link',
    );
    await shot(page, 'add-group');

    // Compose: a send to two groups, with its progress.
    await page.goto(`${URL}/#/compose`);
    const groups = page.getByRole('table', { name: 'Select Groups' });
    const boxes = groups.getByRole('checkbox', { name: /^Select (?!All)/ });
    await boxes.nth(0).check();
    await boxes.nth(1).check();
    await page
      .getByRole('textbox', { name: 'Message', exact: true })
      .fill('Festive offer: 20% off this weekend only!');
    await page.getByRole('button', { name: 'Send Now' }).click();
    if (shots) {
      const progress = page.getByRole('region', { name: 'Sending Progress' });
      await expect(progress).toBeVisible();
      await progress.scrollIntoViewIfNeeded();
      await shot(page, 'compose-progress');
    }
    await expect(page.getByText('Message sending complete! Successfully sent to 2 groups.')).toBeVisible({
      timeout: 30_000,
    });

    // A second start keeps the data and does not seed again.
    await page.goto(`${URL}/#/jobs`);
    // 14 jobs of history, 2 scheduled ahead, the shop's Status post and its channel post (both
    // made through the account as the demo starts), the Cloud API account's template campaign,
    // and the one just sent.
    await expect(page.getByLabel(/^\d+ jobs$/)).toHaveText('20');
    await stopDemo(demo);
    demo = await startDemo(dataDir);
    expect(demo.output).toContain('(existing demo data)');
    expect(credentialsOf(demo.output, 'asha')).toBe(password);
    await page.reload();
    await expect(page.getByLabel(/^\d+ jobs$/)).toHaveText('20', { timeout: 20_000 });
    await page.goto(`${URL}/#/instances`);
    await expect(
      page.getByRole('table', { name: 'Instances' }).getByRole('row', { name: /Asha Sarees Shop/ }),
    ).toContainText('CONNECTED', { timeout: 30_000 });
    // The Cloud API account talks to the new start's simulated Meta (a new port) as well.
    await expect(
      page.getByRole('table', { name: 'Instances' }).getByRole('row', { name: /Asha Sarees \(Cloud API\)/ }),
    ).toContainText('CONNECTED', { timeout: 30_000 });
  } finally {
    await stopDemo(demo);
  }
});
