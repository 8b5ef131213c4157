import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { migrationsFolder, openPostgres } from '../src/db/client.ts';
import { createScratchDatabase } from '../src/db/scratch.ts';
import { buildServerOnce } from './server-build.ts';

/**
 * vitest globalSetup of the server suite: the migrated databases every test's fresh database
 * is copied from (helpers.ts openTestDatabase), made once per run, and the server build that
 * tests starting a server process run (server-build.ts).
 *
 * - PGlite: one database in a data directory, migrated, dumped to a file and kept as it is. A
 *   new cluster costs its initdb and the 35 migrations, about 2.4 s at load 5 in memory (8 s
 *   of CPU on disk, in the product's child process); starting from the dump about 0.9 s. The
 *   directory is what helpers.ts seedPgliteDataDir copies into the DATA_DIR of a server process.
 * - PostgreSQL (when TEST_DATABASE_URL is set): one migrated database, the TEMPLATE of each
 *   test's CREATE DATABASE; the migrations cost about 0.45 s a database.
 *
 * The suite makes over a hundred of each. Every copy is still its own database and still runs
 * `migrate` when opened (which then finds nothing to apply). Server processes on PostgreSQL get
 * empty databases (createPostgresDatabaseUrl): those migrate them.
 */
export default async function setup() {
  const build = buildServerOnce();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wa-pglite-template-'));
  const dataDir = path.join(dir, 'pglite');
  const client = await PGlite.create(dataDir);
  await migrate(drizzle(client), { migrationsFolder });
  const dump = await client.dumpDataDir('none');
  await client.close();
  const file = path.join(dir, 'migrated.tar');
  fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  process.env.PGLITE_TEMPLATE_FILE = file;
  process.env.PGLITE_TEMPLATE_DIR = dataDir;

  const removeBuild = await build;

  let dropTemplate: (() => Promise<void>) | undefined;
  if (process.env.TEST_DATABASE_URL) {
    const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL, 'template');
    const database = await openPostgres(scratch.url, { max: 1 });
    await database.close();
    process.env.PG_TEMPLATE_DATABASE = new URL(scratch.url).pathname.slice(1);
    dropTemplate = scratch.drop;
  }
  return async () => {
    removeBuild();
    fs.rmSync(dir, { recursive: true, force: true });
    await dropTemplate?.();
  };
}
