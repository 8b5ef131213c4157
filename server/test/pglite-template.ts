import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { migrationsFolder } from '../src/db/client.ts';

/**
 * vitest globalSetup of the server suite: one in-memory PGlite, migrated, dumped to a file that
 * every test's fresh database starts from (helpers.ts openTestDatabase). A new cluster costs its
 * initdb and the migrations, about 2.4 s at load 5; starting from the dump about 0.9 s, and the
 * suite makes over a hundred. Each database is still its own and still runs `migrate` (which
 * then finds nothing to apply).
 */
export default async function setup() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wa-pglite-template-'));
  const client = await PGlite.create();
  await migrate(drizzle(client), { migrationsFolder });
  const dump = await client.dumpDataDir('none');
  await client.close();
  const file = path.join(dir, 'migrated.tar');
  fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  process.env.PGLITE_TEMPLATE_FILE = file;
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
