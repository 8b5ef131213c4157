import crypto from 'node:crypto';
import pg from 'pg';

/**
 * A new, empty database on the PostgreSQL server of `baseUrl`, for tests and benchmarks that
 * must not share state (a copy of database `template` when given: the tests' migrated one).
 * `drop` removes it, closing any connection still open to it.
 */
export async function createScratchDatabase(
  baseUrl: string,
  prefix: string,
  template?: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${crypto.randomBytes(6).toString('hex')}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${pg.escapeIdentifier(template)}` : ''}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
