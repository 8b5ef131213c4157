import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { type Database, openPglite, openPostgres } from '../../src/db/client.ts';
import { users, webhookDeliveries } from '../../src/db/schema.ts';
import { queueWebhookEvents } from '../../src/webhooks/service.ts';
import { startReceiver, verifySignature } from '../fakes/webhook-receiver.ts';
import { createPostgresDatabaseUrl, DB_KINDS, seedPgliteDataDir } from '../helpers.ts';
import {
  api,
  killHard,
  type ServerProcess,
  simulatorEnv,
  startServer,
} from '../reliability/support/server-process.ts';
import { waitFor } from '../wait.ts';

/**
 * A SIGKILL while a webhook call is in flight loses nothing: the delivery was claimed by a
 * lease, not taken off a queue, so the next process sends it again once the lease is over.
 */
describe.each(DB_KINDS)('webhook delivery across a SIGKILL on %s', (kind) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wa-webhook-crash-'));
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sends the event again after the process died mid-call, until the receiver acknowledges it', async () => {
    const receiver = await startReceiver(['hang']);
    cleanups.push(receiver.close);
    let databaseUrl: string | undefined;
    if (kind === 'postgres') {
      const scratch = await createPostgresDatabaseUrl();
      cleanups.push(scratch.drop);
      databaseUrl = scratch.url;
    } else {
      seedPgliteDataDir(path.join(dir, 'data'));
    }
    const env = await simulatorEnv({
      ALLOW_PRIVATE_WEBHOOKS: 'true',
      // The call's rows are claimed for three times this (9 s, not the default's 15 s). Not less:
      // the first server must still be waiting for the held call when the test kills it, or it
      // records a timed-out attempt first (seen at 1 s on a loaded machine).
      WEBHOOK_TIMEOUT_MS: '3000',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: path.join(dir, 'data') }),
    });
    const openDb = (): Promise<Database> =>
      databaseUrl ? openPostgres(databaseUrl, { max: 2 }) : openPglite(path.join(dir, 'data', 'pglite'));
    let server: ServerProcess = await startServer(env);
    cleanups.push(() => killHard(server));

    const login = await api(server, 'POST', '/api/auth/login', null, {
      username: 'admin',
      password: 'reliability-admin-password',
    });
    const token = login.json.token as string;
    const created = await api(server, 'POST', '/api/webhooks', token, {
      url: `${receiver.url}/orders`,
      events: ['job.finished'],
    });
    expect(created.status).toBe(200);
    const { secret, id: webhookId } = created.json.webhook as { secret: string; id: string };

    // The event is owed while no server runs (the embedded database is one process's).
    await killHard(server);
    let db = await openDb();
    const [admin] = await db.db.select().from(users).where(eq(users.username, 'admin'));
    await queueWebhookEvents(db.db, admin!.id, 'job.finished', [
      {
        jobId: 'job-crash',
        sessionId: '919800000001_abc',
        status: 'completed',
        total: 1,
        sent: 1,
        failed: 0,
        cancelled: 0,
        finishedAt: new Date().toISOString(),
      },
    ]);
    await db.close();

    server = await startServer(env);
    await waitFor(
      'the first call to arrive (the receiver holds it)',
      async () => receiver.calls.length === 1,
      60_000,
    );
    await killHard(server);

    server = await startServer(env);
    // The claim (3 x the 3 s timeout) runs out, then the next process calls again.
    await waitFor('the second call', async () => receiver.calls.length === 2, 90_000);
    const attempts = await waitFor(
      'the acknowledged call recorded',
      async () => {
        const res = await api(server, 'GET', `/api/webhooks/${webhookId}/attempts`, token);
        return res.json.attempts?.length ? res.json.attempts : null;
      },
      60_000,
    );
    expect(attempts).toEqual([expect.objectContaining({ ok: true, statusCode: 200, events: 1 })]);
    const [first, second] = receiver.calls;
    expect(second!.headers['x-webhook-id']).toBe(first!.headers['x-webhook-id']);
    expect(second!.json).toEqual(first!.json);
    expect(second!.json.data.jobId).toBe('job-crash');
    expect(verifySignature(secret, first!)).toBe(true);
    expect(verifySignature(secret, second!)).toBe(true);
    await killHard(server);

    db = await openDb();
    try {
      const rows = await db.db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.webhookId, webhookId));
      expect(rows.map((r) => [r.status, r.attempts])).toEqual([['delivered', 2]]);
    } finally {
      await db.close();
    }
    expect(receiver.calls).toHaveLength(2);
    // Three server starts and a 15 s lease: beyond the suite's 60 s default on a loaded machine
    // (the second call alone may take up to 90 s above).
  }, 180_000);
});
