import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { serverArgs } from '../../server-build.ts';
import { waitFor } from '../../wait.ts';

/**
 * Real server processes (reliability suite, and the server suite's crash tests): the run's
 * build of server/src/main.ts (server-build.ts), each in its own process group so that SIGKILL
 * takes it at once, talked to over HTTP only.
 */

export const repoRoot = path.resolve(import.meta.dirname, '../../../..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export type ServerProcess = {
  child: ChildProcess;
  url: string;
  /** What the process printed (stdout and stderr), for failure messages. */
  output: () => string;
};

/**
 * The environment every simulated server of the suite shares, on a free port of this machine (the
 * same one when it is started again with it); the caller adds its own.
 */
export async function simulatorEnv(extra: Record<string, string>): Promise<Record<string, string>> {
  return {
    PORT: String(await freePort()),
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    HOST: '127.0.0.1',
    WA_PROVIDER: 'simulator',
    SIMULATOR_LINK_AFTER_MS: '60000',
    SEND_DELAY_MIN_MS: '0',
    SEND_DELAY_MAX_MS: '0',
    ADMIN_PASSWORD: 'reliability-admin-password',
    LOG_LEVEL: 'warn',
    WEB_DIST_DIR: '/nonexistent-web-dist',
    ...extra,
  };
}

/** Spawns a server without waiting for it (PORT must be in `env`). */
export function spawnServer(env: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, serverArgs('main'), {
    cwd: repoRoot,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: unknown) => {
    out += String(d);
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { child, url: `http://127.0.0.1:${env.PORT}`, output: () => out };
}

/** Resolves once `/api/meta` answers. */
export async function waitReady(server: ServerProcess, timeoutMs = 90_000): Promise<ServerProcess> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (!isAlive(server))
      throw new Error(
        `server exited (${server.child.exitCode ?? server.child.signalCode}): ${server.output()}`,
      );
    try {
      const res = await fetch(`${server.url}/api/meta`);
      if (res.ok) return server;
    } catch {}
    if (Date.now() > until) {
      await killHard(server);
      throw new Error(`server did not start within ${timeoutMs} ms: ${server.output()}`);
    }
    await sleep(50);
  }
}

/** Starts a server and resolves once it answers. */
export async function startServer(env: Record<string, string>, timeoutMs = 90_000): Promise<ServerProcess> {
  return waitReady(spawnServer(env), timeoutMs);
}

export function isAlive(server: ServerProcess): boolean {
  return server.child.exitCode === null && server.child.signalCode === null;
}

/** SIGKILL to the whole process group; resolves when the process is gone. */
export function killHard(server: ServerProcess): Promise<void> {
  return new Promise((resolve) => {
    if (!isAlive(server)) return resolve();
    server.child.once('exit', () => resolve());
    try {
      process.kill(-server.child.pid!, 'SIGKILL');
    } catch {
      server.child.kill('SIGKILL');
    }
  });
}

// biome-ignore lint/suspicious/noExplicitAny: answers of several routes, read field by field by the tests
export async function api<T = any>(
  server: ServerProcess | string,
  method: string,
  url: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; json: T }> {
  const base = typeof server === 'string' ? server : server.url;
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json: T;
  try {
    json = JSON.parse(text) as T;
  } catch {
    json = { raw: text } as T;
  }
  return { status: res.status, json };
}

/** A seeded generator (mulberry32), so that a failing run can be replayed with its seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One line of the simulator's outbox file. */
export type OutboxLine = { sessionId: string; messageId: string; chatId: string; sentAt: string };

/**
 * The outbox file's lines, and how many of them sent a chat again (duplicateSends); a line cut
 * short by a SIGKILL is counted, not parsed.
 */
export function readOutbox(file: string): { lines: OutboxLine[]; broken: number; duplicates: number } {
  if (!fs.existsSync(file)) return { lines: [], broken: 0, duplicates: 0 };
  const lines: OutboxLine[] = [];
  let broken = 0;
  for (const l of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!l) continue;
    try {
      lines.push(JSON.parse(l) as OutboxLine);
    } catch {
      broken += 1;
    }
  }
  return { lines, broken, duplicates: duplicateSends(lines) };
}

/** How many (account, chat) pairs appear more than once: each extra line is one chat sent twice. */
export function duplicateSends(lines: OutboxLine[]): number {
  const seen = new Set<string>();
  let dup = 0;
  for (const m of lines) {
    const key = `${m.sessionId} ${m.chatId}`;
    if (seen.has(key)) dup += 1;
    else seen.add(key);
  }
  return dup;
}

/** Signs in the first admin (simulatorEnv's); its token. */
export async function signInAdmin(server: ServerProcess): Promise<string> {
  const admin = await api(server, 'POST', '/api/auth/login', null, {
    username: 'admin',
    password: 'reliability-admin-password',
  });
  if (admin.status !== 200) throw new Error(`admin login: ${admin.status} ${JSON.stringify(admin.json)}`);
  return admin.json.token as string;
}

/** Signs in the first admin, creates a user with credits under it and signs that user in. */
export async function adminAndUser(
  server: ServerProcess,
  username: string,
  credits: number,
): Promise<{ adminToken: string; token: string; userId: string }> {
  const adminToken = await signInAdmin(server);
  const created = await api(server, 'POST', '/api/admin/users', adminToken, {
    username,
    password: `${username}-password`,
    name: username,
    is_bulk_messaging_enabled: 1,
    is_multisession_supported: 1,
  });
  if (created.status !== 200)
    throw new Error(`create user: ${created.status} ${JSON.stringify(created.json)}`);
  const userId = created.json.user.id as string;
  const grant = await api(server, 'POST', `/api/admin/users/${userId}/credits`, adminToken, {
    amount: credits,
  });
  if (grant.status !== 200) throw new Error(`credits: ${grant.status} ${JSON.stringify(grant.json)}`);
  const login = await api(server, 'POST', '/api/auth/login', null, {
    username,
    password: `${username}-password`,
  });
  return { adminToken, token: login.json.token as string, userId };
}

/** Creates an instance, waits for its QR, links it through the simulator and waits for CONNECTED. */
export async function linkedAccount(
  server: ServerProcess,
  token: string,
  phoneNumber: string,
): Promise<string> {
  const instance = await api(server, 'POST', '/api/create-instance', token, {
    phoneNumber,
    sessionName: `S ${phoneNumber}`,
  });
  if (instance.status !== 200)
    throw new Error(`create-instance: ${instance.status} ${JSON.stringify(instance.json)}`);
  const accountId = instance.json.sessionId as string;
  await waitFor(
    'QR',
    async () =>
      (await fetch(`${server.url}/api/${accountId}/QR`, { headers: { authorization: `Bearer ${token}` } }))
        .status === 200,
    60_000,
  );
  const link = await api(server, 'POST', `/api/simulator/sessions/${accountId}/link`, token, {});
  if (link.status !== 200) throw new Error(`link: ${link.status} ${JSON.stringify(link.json)}`);
  await waitFor(
    'CONNECTED',
    async () => (await api(server, 'GET', `/api/${accountId}/status`, token)).json.connected,
    60_000,
  );
  return accountId;
}
