import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Config } from '../config.ts';
import { pidFileName, runningServerPid } from './pid-file.ts';
import { readTar, writeTar } from './tar.ts';

/**
 * Backup and restore of the embedded database: one tar file holding a manifest, PGlite's
 * data-directory dump and the small files beside it in DATA_DIR (the key that encrypts
 * WhatsApp credentials among them: a database without its key is useless).
 */
export class BackupError extends Error {}

const FORMAT = 'wa-console-backup';
const DATABASE_ENTRY = 'pglite.tar.gz';
const FILES_PREFIX = 'files/';
/** Files beside the database larger than this are not keys or settings; they stay out. */
const MAX_SIDE_FILE = 1024 * 1024;

type Manifest = { format: typeof FORMAT; version: 1; createdAt: string; files: string[] };

const databaseDir = (config: Pick<Config, 'dataDir'>) => path.join(config.dataDir, 'pglite');

function refuseUnlessEmbeddedAndStopped(config: Pick<Config, 'dataDir' | 'databaseUrl'>, verb: string) {
  if (config.databaseUrl)
    throw new BackupError(
      `DATABASE_URL is set: ${verb} PostgreSQL with its own tools (pg_dump / pg_restore, see docs/operations.md)`,
    );
  const pid = runningServerPid(config.dataDir);
  if (pid !== null)
    throw new BackupError(
      `a server is running on ${config.dataDir} (pid ${pid}): stop it first, the embedded database belongs to one process at a time`,
    );
}

/** The regular files at the top of DATA_DIR that belong in a backup. */
function sideFiles(dataDir: string, exclude: string): string[] {
  if (!fs.existsSync(dataDir)) return [];
  return fs
    .readdirSync(dataDir, { withFileTypes: true })
    .filter((d) => d.isFile() && d.name !== pidFileName)
    .map((d) => d.name)
    .filter((name) => path.join(dataDir, name) !== exclude)
    .filter((name) => fs.statSync(path.join(dataDir, name)).size <= MAX_SIDE_FILE)
    .sort();
}

/**
 * Writes a file that this call creates itself (O_EXCL, O_NOFOLLOW, mode 0600): a symlink or file
 * planted at that name is never followed into, and the key never lands in a file someone else
 * can read. A leftover of an earlier run is removed first (unlinking a link removes the link).
 */
function writeNewFile(file: string, data: Buffer): void {
  try {
    fs.unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
  let fd: number;
  try {
    fd = fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ELOOP')
      throw new BackupError(`${file} was created by someone else while the backup ran: nothing was written`);
    throw err;
  }
  try {
    fs.writeSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export async function createBackup(
  config: Pick<Config, 'dataDir' | 'databaseUrl'>,
  outFile: string,
): Promise<{ file: string; bytes: number; files: string[] }> {
  refuseUnlessEmbeddedAndStopped(config, 'back up');
  const out = path.resolve(outFile);
  if (!fs.existsSync(path.join(databaseDir(config), 'PG_VERSION')))
    throw new BackupError(`no embedded database in ${databaseDir(config)}`);
  const client = await PGlite.create(databaseDir(config));
  let dump: Buffer;
  try {
    dump = Buffer.from(await (await client.dumpDataDir('gzip')).arrayBuffer());
  } finally {
    await client.close();
  }
  const files = sideFiles(config.dataDir, out);
  const manifest: Manifest = { format: FORMAT, version: 1, createdAt: new Date().toISOString(), files };
  const archive = writeTar([
    { name: 'manifest.json', data: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`) },
    { name: DATABASE_ENTRY, data: dump },
    ...files.map((name) => ({
      name: `${FILES_PREFIX}${name}`,
      data: fs.readFileSync(path.join(config.dataDir, name)),
    })),
  ]);
  // Written aside and renamed: a backup cut short by a crash never looks like a whole one.
  const partial = `${out}.partial`;
  writeNewFile(partial, archive);
  fs.renameSync(partial, out);
  return { file: out, bytes: archive.length, files };
}

function readBackup(inFile: string): { manifest: Manifest; dump: Buffer; files: Map<string, Buffer> } {
  let entries: ReturnType<typeof readTar>;
  try {
    entries = readTar(fs.readFileSync(inFile));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new BackupError(`no file ${inFile}`);
    throw new BackupError(`${inFile} is not a backup of this console (${(err as Error).message})`);
  }
  const byName = new Map(entries.map((e) => [e.name, e.data]));
  let manifest: Manifest | undefined;
  try {
    manifest = JSON.parse(byName.get('manifest.json')?.toString('utf8') ?? 'null') as Manifest;
  } catch {}
  const dump = byName.get(DATABASE_ENTRY);
  if (manifest?.format !== FORMAT || manifest.version !== 1 || !dump)
    throw new BackupError(`${inFile} is not a backup of this console`);
  const files = new Map<string, Buffer>();
  for (const name of manifest.files) {
    const data = byName.get(`${FILES_PREFIX}${name}`);
    if (!data || name !== path.basename(name) || name === pidFileName)
      throw new BackupError(`${inFile} is damaged: ${name} is missing`);
    files.set(name, data);
  }
  return { manifest, dump, files };
}

/**
 * Replaces the embedded database (and the files beside it that the backup holds) with the
 * backup's. What was there is moved to DATA_DIR/before-restore-<time>/, never deleted.
 */
export async function restoreBackup(
  config: Pick<Config, 'dataDir' | 'databaseUrl'>,
  inFile: string,
): Promise<{ createdAt: string; files: string[]; movedTo: string | null }> {
  refuseUnlessEmbeddedAndStopped(config, 'restore');
  const { manifest, dump, files } = readBackup(path.resolve(inFile));
  fs.mkdirSync(config.dataDir, { recursive: true });
  const aside = path.join(config.dataDir, `before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const moved: [from: string, to: string][] = [];
  const written: string[] = [];
  const moveAside = (from: string) => {
    if (!fs.existsSync(from)) return;
    fs.mkdirSync(aside, { recursive: true });
    const to = path.join(aside, path.basename(from));
    fs.renameSync(from, to);
    moved.push([from, to]);
  };
  try {
    moveAside(databaseDir(config));
    for (const name of files.keys()) moveAside(path.join(config.dataDir, name));
    const client = await PGlite.create(databaseDir(config), {
      loadDataDir: new Blob([new Uint8Array(dump)]),
    });
    await client.query('SELECT 1');
    await client.close();
    for (const [name, data] of files) {
      written.push(path.join(config.dataDir, name));
      fs.writeFileSync(path.join(config.dataDir, name), data, { mode: 0o600 });
    }
  } catch (err) {
    fs.rmSync(databaseDir(config), { recursive: true, force: true });
    for (const file of written) fs.rmSync(file, { force: true });
    for (const [from, to] of moved.reverse()) fs.renameSync(to, from);
    if (moved.length) fs.rmSync(aside, { recursive: true, force: true });
    throw new BackupError(`the restore failed, nothing was changed: ${(err as Error).message}`);
  }
  return { createdAt: manifest.createdAt, files: [...files.keys()], movedTo: moved.length ? aside : null };
}
