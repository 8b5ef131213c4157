import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openPostgres } from '../../src/db/client.ts';
import { accounts } from '../../src/db/schema.ts';
import { buildUser, createPostgresDatabaseUrl } from '../helpers.ts';
import { freePort } from '../reliability/support/server-process.ts';
import { serverArgs } from '../server-build.ts';
import { waitFor } from '../wait.ts';

const LEASE_MS = 3000;
const repoRoot = path.resolve(import.meta.dirname, '../../..');

type Node = { proc: ChildProcess; port: number; base: string; output: string[] };

async function startNode(databaseUrl: string, dataDir: string): Promise<Node> {
  const port = await freePort();
  const output: string[] = [];
  const proc = spawn(process.execPath, serverArgs('main'), {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      WA_PROVIDER: 'simulator',
      SESSION_LEASE_MS: String(LEASE_MS),
      SIMULATOR_LINK_AFTER_MS: '60000',
      SIMULATOR_SEND_LATENCY_MS: '0',
      ADMIN_PASSWORD: 'admin-password',
      LOG_LEVEL: 'warn',
      WEB_DIST_DIR: '/nonexistent-web-dist',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d) => output.push(String(d)));
  proc.stderr!.on('data', (d) => output.push(String(d)));
  const base = `http://127.0.0.1:${port}`;
  await waitFor(
    `node on port ${port}`,
    async () => {
      if (proc.exitCode !== null) throw new Error(`node exited: ${output.join('')}`);
      return (await fetch(`${base}/api/sessions`)).status === 401;
    },
    60_000,
  );
  return { proc, port, base, output };
}

async function api(node: Node, method: string, url: string, token: string, body?: object) {
  const res = await fetch(`${node.base}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('two server processes on one PostgreSQL', () => {
  let database: Database;
  let drop: () => Promise<void>;
  const nodes: Node[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'two-nodes-'));

  beforeAll(async () => {
    const created = await createPostgresDatabaseUrl();
    drop = created.drop;
    // Migrates the fresh database first, so the nodes start on a ready schema.
    database = await openPostgres(created.url, { max: 3 });
    // One after the other: both would otherwise race to create the first admin.
    nodes.push(await startNode(created.url, dataDir));
    nodes.push(await startNode(created.url, dataDir));
  }, 120_000);

  afterAll(async () => {
    for (const n of nodes) if (n.proc.exitCode === null) n.proc.kill('SIGKILL');
    await database?.close();
    await drop?.();
  });

  it('drives every session from exactly one node, and the survivor takes over after a SIGKILL', async () => {
    const user = await buildUser({ db: database.db }, { isMultisessionSupported: true });
    const login = await fetch(`${nodes[0]!.base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: user.username, password: user.password }),
    });
    const token = ((await login.json()) as { token: string }).token;

    // Instances created through both nodes.
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await api(nodes[i % 2]!, 'POST', '/api/create-instance', token, {
        phoneNumber: `9198000000${String(i).padStart(2, '0')}`,
        sessionName: `Node test ${i}`,
      });
      expect(res.status).toBe(200);
      ids.push(res.body.sessionId as string);
    }
    const rows = () => database.db.select().from(accounts).where(inArray(accounts.accountId, ids));
    // Each gets a QR from whichever node claimed it; then it is linked through the other node's API.
    await waitFor('QRs', async () => (await rows()).every((r) => r.qr && r.ownerNode), 10_000);
    for (const [i, id] of ids.entries()) {
      const res = await api(nodes[(i + 1) % 2]!, 'POST', `/api/simulator/sessions/${id}/link`, token);
      expect(res.status).toBe(200);
    }
    await waitFor('all CONNECTED', async () => (await rows()).every((r) => r.status === 'CONNECTED'), 10_000);
    for (const id of ids) {
      for (const node of nodes) {
        expect((await api(node, 'GET', `/api/${id}/status`, token)).body).toMatchObject({ connected: true });
      }
    }

    // Ownership: each account has one owner among the two processes, and it stays put while
    // both live (leases renewed by their holder, never taken by the other).
    const pidOf = (owner: string | null) => nodes.find((n) => owner?.includes(`-${n.proc.pid}-`));
    const first = await rows();
    for (const r of first) expect(pidOf(r.ownerNode)).toBeDefined();
    await new Promise((r) => setTimeout(r, LEASE_MS + 500));
    const later = await rows();
    for (const r of later) {
      const before = first.find((f) => f.accountId === r.accountId)!;
      expect(r.ownerNode).toBe(before.ownerNode);
      expect(r.leaseExpiresAt!.getTime()).toBeGreaterThan(before.leaseExpiresAt!.getTime());
      expect(r.connectedAt).toEqual(before.connectedAt);
    }

    // Kill the node that drives the most accounts.
    const counts = nodes.map((n) => later.filter((r) => pidOf(r.ownerNode) === n).length);
    const victim = counts[0]! >= counts[1]! ? nodes[0]! : nodes[1]!;
    const survivor = victim === nodes[0] ? nodes[1]! : nodes[0]!;
    const victimAccounts = later.filter((r) => pidOf(r.ownerNode) === victim).map((r) => r.accountId);
    expect(victimAccounts.length).toBeGreaterThan(0);
    const killedAt = Date.now();
    victim.proc.kill('SIGKILL');

    const survivorOwner = later.find((r) => pidOf(r.ownerNode) === survivor)?.ownerNode;
    await waitFor(
      'takeover',
      async () =>
        (await rows()).every((r) => {
          const reconnected = r.connectedAt!.getTime() >= killedAt;
          // The survivor's own accounts were never interrupted; the victim's connected anew.
          return (
            r.status === 'CONNECTED' &&
            pidOf(r.ownerNode) === survivor &&
            reconnected === victimAccounts.includes(r.accountId)
          );
        }),
      LEASE_MS + 5000,
    );
    const takeoverMs = Date.now() - killedAt;
    console.log(
      `two-nodes: ${victimAccounts.length} sessions CONNECTED again under the survivor ${takeoverMs} ms after SIGKILL (lease ${LEASE_MS} ms)`,
    );
    expect(takeoverMs).toBeLessThanOrEqual(LEASE_MS + 1500);
    if (survivorOwner) for (const r of await rows()) expect(r.ownerNode).toBe(survivorOwner);
    for (const id of victimAccounts) {
      expect((await api(survivor, 'GET', `/api/${id}/status`, token)).body).toMatchObject({
        connected: true,
        status: 'CONNECTED',
      });
    }
    // Reconnected from the stored credentials: no QR was needed.
    for (const r of await rows()) expect(r.qr).toBeNull();
  }, 120_000);
});
