import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dispatcher, startDispatcher } from '../../src/messaging/engine/dispatcher.ts';
import { buildAccount, expectLedgerMatches, waitForJobEnd } from '../fakes/messaging.ts';
import { FakeRuntime } from '../fakes/runtime.ts';
import { bearer, buildUser, loginToken, twoNodesFor } from '../helpers.ts';

/**
 * Two nodes on one PostgreSQL: an API node accepts the job, the node that owns the account
 * sends it, woken by NOTIFY long before its fallback poll.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('two nodes on one PostgreSQL', () => {
  const { api, worker, app } = twoNodesFor();
  let runtime: FakeRuntime;
  let dispatcher: Dispatcher;
  beforeAll(async () => {
    runtime = new FakeRuntime();
    // A poll far longer than the test: only the notification can wake this node in time.
    dispatcher = await startDispatcher(worker, runtime, { pollMs: 60_000, sweepMs: 60_000 });
  });
  afterAll(async () => {
    await dispatcher.stop();
  });

  it('a job accepted on one node is sent at once by the node that owns the session', async () => {
    const user = await buildUser(api, { credits: 10 });
    const token = await loginToken(app, user.username);
    const accountId = await buildAccount(api, user.id, { ownerNode: worker.nodeId });
    const transport = runtime.connect(accountId, user.id);
    // Let the loop go idle on its long poll first.
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    const res = await app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/sendIndividualMessage`,
      headers: bearer(token),
      payload: { chatIds: ['919800005001', '919800005002'], content: 'Across nodes' },
    });
    expect(res.statusCode).toBe(200);
    const job = await waitForJobEnd(app, token, res.json().jobId, 10_000);
    expect(job.status).toBe('completed');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(transport.sent.map((s) => s.chatId)).toEqual([
      '919800005001@s.whatsapp.net',
      '919800005002@s.whatsapp.net',
    ]);
    await expectLedgerMatches(api.db, [user.id]);
  });
});
