import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type Database, openPostgres } from '../../../src/db/client.ts';
import { createPostgresDatabaseUrl, late } from '../../helpers.ts';
import { killHard, type ServerProcess, simulatorEnv, startServer } from './server-process.ts';

export type Node = { server: ServerProcess; outbox: string; name: string };

/**
 * For a describe block: a new PostgreSQL database (`database`: a connection of the test's own)
 * and server processes on it, A then B (started together they would race to create the first
 * admin), each writing its own outbox under `dir`; `addNode` starts one more the same way. All are
 * killed, and the database dropped, after the block. `env`: more settings of every node.
 */
export function nodesOnOnePostgres(dirPrefix: string, env: Record<string, string>) {
  const nodes: Node[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), dirPrefix));
  let database: Database | undefined;
  let created: { url: string; drop: () => Promise<void> } | undefined;

  async function addNode(name: string): Promise<Node> {
    const outbox = path.join(dir, `outbox-${name}.jsonl`);
    const server = await startServer(
      await simulatorEnv({
        DATABASE_URL: created!.url,
        DATA_DIR: path.join(dir, `data-${name}`),
        SIMULATOR_OUTBOX_FILE: outbox,
        SIMULATOR_SEND_LATENCY_MS: '20',
        ...env,
      }),
    );
    const node = { server, outbox, name };
    nodes.push(node);
    return node;
  }

  beforeAll(async () => {
    created = await createPostgresDatabaseUrl();
    database = await openPostgres(created.url, { max: 3 });
    for (const name of ['A', 'B']) await addNode(name);
  }, 180_000);

  afterAll(async () => {
    for (const n of nodes) await killHard(n.server);
    await database?.close();
    await created?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  return { nodes, dir, database: late(() => database!), addNode };
}
