import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WaEmulator } from '@wa/emulator';
import {
  api,
  freePort,
  isAlive,
  killHard,
  type ServerProcess,
  startServer,
} from '../../reliability/support/server-process.ts';
import { waitFor } from '../../wait.ts';

/**
 * The product as a real process on the real Baileys socket (WA_PROVIDER=baileys), pointed at
 * the emulator through its one seam (WA_WS_URL, WA_EMULATOR_ROOT_KEY); WA_VERSION is set so
 * that no start waits on a version lookup that cannot succeed offline.
 */
export class Product {
  server: ServerProcess | null = null;
  token = '';
  userId = '';
  readonly dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wa-emulator-product-'));
  private port = 0;

  constructor(
    private readonly emulator: WaEmulator,
    private readonly extraEnv: Record<string, string> = {},
  ) {}

  async start(): Promise<void> {
    this.port ||= await freePort();
    this.server = await startServer({
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      PORT: String(this.port),
      DATA_DIR: this.dataDir,
      WA_PROVIDER: 'baileys',
      WA_VERSION: '2.3000.1043857760',
      ...this.emulator.productEnv(),
      SEND_DELAY_MIN_MS: '0',
      SEND_DELAY_MAX_MS: '0',
      ADMIN_PASSWORD: 'emulator-admin-password',
      LOG_LEVEL: 'warn',
      WEB_DIST_DIR: '/nonexistent-web-dist',
      ...this.extraEnv,
    });
    this.token = '';
    if (!this.userId) {
      this.token = await this.login('admin', 'emulator-admin-password');
      const created = await this.call('POST', '/api/admin/users', {
        username: 'emulator-user',
        password: 'emulator-user-password',
        name: 'Emulator User',
        is_bulk_messaging_enabled: 1,
        is_multisession_supported: 1,
      });
      if (created.status !== 200) throw new Error(`user not created: ${JSON.stringify(created.json)}`);
      this.userId = created.json.user.id;
      const granted = await this.call('POST', `/api/admin/users/${this.userId}/credits`, { amount: 100 });
      if (granted.status !== 200) throw new Error(`credits not granted: ${JSON.stringify(granted.json)}`);
      this.token = '';
    }
    this.token = await this.login('emulator-user', 'emulator-user-password');
  }

  private async login(username: string, password: string): Promise<string> {
    const login = await this.call('POST', '/api/auth/login', { username, password });
    if (login.status !== 200) throw new Error(`login failed: ${JSON.stringify(login.json)}`);
    return login.json.token;
  }

  /** Sends `content` to these numbers through the API, which must accept it: the job's id. */
  async sendText(accountId: string, chatIds: string[], content: string): Promise<string> {
    const res = await this.call('POST', `/api/session/${accountId}/sendIndividualMessage`, {
      chatIds,
      content,
    });
    if (res.status !== 200) throw new Error(`send refused: ${res.status} ${JSON.stringify(res.json)}`);
    return res.json.jobId as string;
  }

  /** The job with every recipient row. */
  async job(jobId: string) {
    return (await this.call('GET', `/api/message-jobs-details/${jobId}?detailsLimit=1000&media=0`)).json
      .job as {
      status: string;
      details: {
        chatId: string;
        status: string;
        error: string | null;
        sentAt: string | null;
        deliveredAt: string | null;
        readAt: string | null;
      }[];
    };
  }

  /** A new instance for `phone`, linked by the emulator's phone scanning its QR image, CONNECTED. */
  async link(phone: string, name: string): Promise<{ accountId: string; deviceId: number }> {
    const created = await this.call('POST', '/api/create-instance', {
      phoneNumber: `+${phone}`,
      sessionName: name,
    });
    if (created.status !== 200) throw new Error(`instance not created: ${JSON.stringify(created.json)}`);
    const accountId: string = created.json.sessionId;
    const png = await waitFor('the QR image', () => this.qrPng(accountId), 120_000, 500);
    const deviceId = (await this.emulator.phone(phone).scanPng(png)).id;
    await this.waitStatus(accountId, 'CONNECTED');
    return { accountId, deviceId };
  }

  /** Waits until the account's reason is `reason` (a reconnect may show other reasons first). */
  async waitReason(accountId: string, reason: string): Promise<void> {
    let last: string | null | undefined;
    try {
      await waitFor(
        `session ${accountId}: ${reason}`,
        async () => {
          last = (await this.account(accountId))?.statusReason;
          return last === reason;
        },
        120_000,
        250,
      );
    } catch (err) {
      throw new Error(`${(err as Error).message} (last reason: ${last})`);
    }
  }

  /** The user's credit ledger, as its admin reads it (each change, with the job it was for). */
  async ledger(): Promise<{ delta: number; reason: string; jobId: string | null }[]> {
    const admin = await this.login('admin', 'emulator-admin-password');
    const ledger = await api(this.server!, 'GET', `/api/admin/users/${this.userId}/ledger`, admin);
    return ledger.json.entries;
  }

  async credits(): Promise<number> {
    return (await this.call('GET', '/api/userDetails')).json.credits.user_credits;
  }

  /** Stops the process as an operator would (SIGTERM: it closes its sockets and hands its leases back). */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server || !isAlive(server)) return;
    const exited = new Promise<void>((resolve) => server.child.once('exit', () => resolve()));
    server.child.kill('SIGTERM');
    const timer = setTimeout(() => void killHard(server), 30_000);
    await exited;
    clearTimeout(timer);
  }

  /** SIGKILL to the process (a crash, an OOM kill): nothing is closed or handed back. */
  async kill(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await killHard(server);
  }

  async dispose(): Promise<void> {
    await this.stop();
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }

  output(): string {
    return this.server?.output() ?? '';
  }

  /**
   * The closes of the account's connection the product logged, in order (accounts/driver.ts logs
   * each, with whether it reconnects, before it writes its reason).
   */
  closes(accountId: string): { reason: string; willReconnect: boolean }[] {
    return this.output()
      .split('\n')
      .flatMap((line) => {
        try {
          const entry = JSON.parse(line);
          return entry?.accountId === accountId && typeof entry.willReconnect === 'boolean' ? [entry] : [];
        } catch {
          return [];
        }
      });
  }

  /** The last close logged with `reason`. */
  lastClose(accountId: string, reason: string) {
    return this.closes(accountId)
      .filter((c) => c.reason === reason)
      .at(-1);
  }

  // biome-ignore lint/suspicious/noExplicitAny: answers of several routes, read field by field by the tests
  call<T = any>(method: string, url: string, body?: unknown) {
    return api<T>(this.server!, method, url, this.token || null, body);
  }

  /** The QR image as a camera sees it: the PNG the product serves (404 until there is one). */
  async qrPng(accountId: string): Promise<Buffer | null> {
    const res = await fetch(`${this.server!.url}/api/${accountId}/QR?t=${Date.now()}`, {
      headers: { authorization: `Bearer ${this.token}` },
    });
    if (res.status !== 200) return null;
    return Buffer.from(await res.arrayBuffer());
  }

  async account(accountId: string) {
    const list = await this.call('GET', '/api/sessions');
    return (
      list.json.sessions as {
        sessionId: string;
        status: string;
        statusReason: string | null;
        sendPaused: boolean;
        sendPausedUntil: string | null;
      }[]
    ).find((s) => s.sessionId === accountId);
  }

  waitStatus(accountId: string, status: string, ms = 120_000) {
    return waitFor(
      `session ${accountId} ${status}`,
      async () => ((await this.account(accountId))?.status === status ? true : null),
      ms,
      250,
    );
  }
}
