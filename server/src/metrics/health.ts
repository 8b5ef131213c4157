import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { type Db, migrationsFolder, queryRows } from '../db/client.ts';

export type Readiness = { ready: true } | { ready: false; reason: string };

/** The newest migration this code ships (drizzle records each applied one by its folder time). */
function newestMigration(): { tag: string; when: number } {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, 'meta/_journal.json'), 'utf8')) as {
    entries: { tag: string; when: number }[];
  };
  const newest = journal.entries.at(-1);
  if (!newest) throw new Error('the migration journal is empty');
  return newest;
}

/** The SQLSTATE of a driver error, which drizzle wraps as the cause of its own. */
function sqlState(err: unknown): string | undefined {
  for (let e = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** Ready: the database answers and holds every migration that this code ships. */
export async function checkReadiness(db: Db): Promise<Readiness> {
  let applied: number | null;
  try {
    const [row] = await queryRows<{ newest: string | null }>(
      db,
      sql`SELECT max(created_at)::text AS newest FROM drizzle.__drizzle_migrations`,
    );
    applied = row?.newest ? Number(row.newest) : null;
  } catch (err) {
    // 42P01 undefined table, 3F000 undefined schema: the database answers but was never migrated.
    const code = sqlState(err);
    if (code === '42P01' || code === '3F000') return { ready: false, reason: 'migrations not applied' };
    return { ready: false, reason: 'database unreachable' };
  }
  const newest = newestMigration();
  if (applied === null || applied < newest.when)
    return { ready: false, reason: `migrations not applied (missing ${newest.tag})` };
  return { ready: true };
}
