import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountRunner, startAccountRunner } from '../../src/accounts/runner.ts';
import { type OutcomeBatches, startOutcomeBatches } from '../../src/messaging/outcome-batches.ts';
import { createAccount, statusOf } from '../fakes/accounts.ts';
import { bearer, buildUser, loginToken, type TestApp, twoNodesFor } from '../helpers.ts';
import { waitFor } from '../wait.ts';

/**
 * Two nodes on one PostgreSQL: the API node (no runner) answers the pairing code the other node's
 * transport got, and its simulator inbound route reaches the account the other node drives.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('pairing codes and replies across two nodes', () => {
  const { api, worker, app } = twoNodesFor({ SIMULATOR_LINK_AFTER_MS: '600000', SESSION_LEASE_MS: '3000' });
  let runner: AccountRunner;
  let outcomes: OutcomeBatches;
  beforeAll(async () => {
    runner = await startAccountRunner(worker);
    outcomes = startOutcomeBatches(worker, runner);
  });
  afterAll(async () => {
    await outcomes.stop();
    await runner.stop();
  });

  it('the API node serves the code the driving node got; after linking, a STOP through it opts the number out', async () => {
    const t = { app, ctx: api, db: api.db } as unknown as TestApp;
    const user = await buildUser(t);
    const token = await loginToken(app, user.username);
    const accountId = await createAccount(t, token, {
      phoneNumber: '919700000091',
      sessionName: 'Two nodes',
    });
    const res = await app.inject({
      method: 'POST',
      url: `/api/session/${accountId}/pairing-code`,
      headers: bearer(token),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().code).toMatch(/^[1-9A-HJ-NP-TV-Z]{8}$/);
    expect(runner.ownedAccountIds()).toEqual([accountId]);
    const link = await app.inject({
      method: 'POST',
      url: `/api/simulator/sessions/${accountId}/link`,
      headers: bearer(token),
    });
    expect(link.statusCode, link.body).toBe(200);
    await waitFor('linked', async () => (await statusOf(t, token, accountId)).connected, 10_000);

    const inbound = await app.inject({
      method: 'POST',
      url: `/api/simulator/sessions/${accountId}/inbound`,
      headers: bearer(token),
      payload: { from: '919800040001', text: 'STOP' },
    });
    expect(inbound.statusCode, inbound.body).toBe(200);
    expect(inbound.json().message).toBe('Message delivered');
    const list = await waitFor(
      'the opt-out',
      async () => {
        const rows = (
          await app.inject({ method: 'GET', url: '/api/opt-outs', headers: bearer(token) })
        ).json().optOuts as { phoneNumber: string; source: string }[];
        return rows.length > 0 ? rows : null;
      },
      10_000,
    );
    expect(list.map((r) => [r.phoneNumber, r.source])).toEqual([['919800040001', 'reply']]);
  });
});
