import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, queryRows } from '../../src/db/client.ts';
import { openTestDatabase } from '../helpers.ts';

const shared = async (db: Parameters<typeof queryRows>[0]) =>
  (await queryRows<{ shared_buffers: string }>(db, sql`SHOW shared_buffers`))[0]!.shared_buffers;

describe('the embedded database: shared_buffers', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wa-pglite-settings-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is 32MB unless PGLITE_SHARED_BUFFERS says otherwise, on a new and on an existing data directory', async () => {
    const first = await openDatabase({ databaseUrl: undefined, dataDir: dir });
    expect(await shared(first.db)).toBe('32MB');
    await first.close();
    const again = await openDatabase({ databaseUrl: undefined, dataDir: dir, pgliteSharedBuffers: '16MB' });
    expect(await shared(again.db)).toBe('16MB');
    await again.close();
    // In memory, as the tests open theirs (from the run's migrated dump: no initdb of its own).
    const memory = await openTestDatabase('pglite');
    expect(await shared(memory.db)).toBe('32MB');
    await memory.close();
  });
});
