import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createBackup } from '../../src/backup/backup.ts';
import { createContext } from '../../src/context.ts';
import { openPglite } from '../../src/db/client.ts';
import { buildApp } from '../../src/http/app.ts';
import { compactErasures } from '../../src/messaging/erasure-compaction.ts';
import { buildAccount } from '../fakes/messaging.ts';
import { account, bearer, testConfig } from '../helpers.ts';
import { recordFigure } from './support/figures.ts';

const NUMBER = '919811122233';

/** Files under `dir` (or bytes of a stream) that hold the erased number, as grep finds them. */
const filesHolding = (dir: string) =>
  execSync(`grep -rla ${NUMBER} ${JSON.stringify(dir)} || true`)
    .toString()
    .split('\n')
    .filter(Boolean);

describe('erasure compaction on PGlite', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'erasure-compaction-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('after the compaction neither the data directory nor a backup holds the erased number', async () => {
    const config = testConfig({ SECRET_KEY: 'ef'.repeat(32), DATA_DIR: dataDir, ERASURE_COMPACT_MS: '1000' });
    const database = await openPglite(path.join(dataDir, 'pglite'));
    const ctx = createContext(config, database, 'compaction');
    const app = await buildApp(ctx);
    await app.ready();
    const t = { app, ctx, db: database.db, close: async () => {} };
    try {
      const { user, token } = await account(t, { credits: 10 });
      const accountId = await buildAccount(t, user.id, { ownerNode: 'nobody' });
      const sent = await app.inject({
        method: 'POST',
        url: `/api/session/${accountId}/sendIndividualMessage`,
        headers: bearer(token),
        payload: {
          chatIds: [NUMBER, '919811122244'],
          content: 'Offer',
          scheduleTime: new Date(Date.now() + 3_600_000).toISOString(),
        },
      });
      expect(sent.statusCode, sent.body).toBe(200);
      await database.db.execute(
        sql`UPDATE message_job_recipients SET reply_text = ${`call me on ${NUMBER}`}, replied_at = now()
            WHERE chat_id = ${`${NUMBER}@s.whatsapp.net`}`,
      );
      await database.db.execute(sql`CHECKPOINT`);
      const erased = await app.inject({
        method: 'DELETE',
        url: `/api/contacts/by-phone/${NUMBER}`,
        headers: bearer(token),
      });
      expect(erased.statusCode, erased.body).toBe(200);
      const before = filesHolding(dataDir).length;
      recordFigure('erasure', 'files holding an erased number before compaction', before);
      expect(before).toBeGreaterThan(0);

      // Not yet due: half of ERASURE_COMPACT_MS after the erasure.
      expect(await compactErasures(ctx, new Date(Date.now() - 10_000))).toBe(false);
      const started = performance.now();
      expect(await compactErasures(ctx, new Date(Date.now() + 1000))).toBe(true);
      recordFigure('erasure', 'compaction ms (11 small tables)', Math.round(performance.now() - started));
      expect(await compactErasures(ctx, new Date(Date.now() + 1000))).toBe(false);
      const after = filesHolding(dataDir);
      recordFigure('erasure', 'erased numbers found on disk after compaction', after.length, true);
      expect(after).toEqual([]);
    } finally {
      await app.close();
      await database.close();
    }
    const out = path.join(os.tmpdir(), `erasure-backup-${process.pid}.tar`);
    try {
      await createBackup(config, out);
      const inBackup = Number(
        execSync(`tar -xOf ${out} pglite.tar.gz | gunzip | grep -ac ${NUMBER} || true`).toString().trim(),
      );
      recordFigure('erasure', 'erased numbers found in a backup after compaction', inBackup, true);
      expect(inBackup).toBe(0);
    } finally {
      fs.rmSync(out, { force: true });
    }
  });
});
