import fs from 'node:fs';
import path from 'node:path';

/**
 * A server on the embedded database writes its pid into DATA_DIR, so that the operator's
 * backup and restore can tell a running server from a stopped one (PGlite is one process's
 * database; a second one must not touch its files meanwhile).
 */
const FILE = 'server.pid';

export const pidFileName = FILE;

/** Writes this process's pid; the returned function removes it again (if still ours). */
export function writePidFile(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, FILE);
  fs.writeFileSync(file, `${process.pid}\n`);
  return () => {
    try {
      if (fs.readFileSync(file, 'utf8').trim() === String(process.pid)) fs.unlinkSync(file);
    } catch {}
  };
}

/** The pid of a live server on this data directory, or null (no file, or its process is gone). */
export function runningServerPid(dataDir: string): number | null {
  let pid: number;
  try {
    pid = Number.parseInt(fs.readFileSync(path.join(dataDir, FILE), 'utf8').trim(), 10);
  } catch {
    return null;
  }
  // Our own pid in the file is a stale one from a container restarted with the same pid.
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}
