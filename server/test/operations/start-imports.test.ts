import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serverArgs } from '../server-build.ts';

/**
 * The packages the built server imports before it serves anything: those `main.js` reaches
 * through static imports, chunk by chunk (esbuild writes each as `import … from "…";` at the
 * start of a line; a dynamic `import()` is a chunk loaded when first called).
 */
function packagesAtStart(mainFile: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = fs.readFileSync(file, 'utf8');
    for (const [, spec] of text.matchAll(/^import\s*(?:[^;'"]*?from\s*)?"([^"]+)";/gm)) {
      if (spec!.startsWith('.')) visit(path.resolve(path.dirname(file), spec!));
      else if (!spec!.startsWith('node:')) packages.add(spec!);
    }
  };
  visit(mainFile);
  return packages;
}

describe('what the compiled server loads at start', () => {
  const atStart = packagesAtStart(serverArgs('main').at(-1)!);

  it('reads its own graph (the walk finds the packages every start needs)', () => {
    expect(atStart).toContain('fastify');
    expect(atStart).toContain('pg');
  });

  // Each is loaded where it is first needed (docs/performance.md, Idle memory of the compiled
  // server): Baileys (about 25 MB resident) with a linked phone's transport or its first file,
  // PGlite when the database is the embedded one, the proxy agents and undici with a proxy, file-type
  // with the first file sent, qrcode with the first QR, pino-pretty for a terminal.
  it.each([
    'baileys',
    '@electric-sql/pglite',
    'drizzle-orm/pglite',
    'undici',
    'https-proxy-agent',
    'socks-proxy-agent',
    'file-type',
    'qrcode',
    'pino-pretty',
  ])('does not import %s', (pkg) => {
    expect([...atStart].filter((p) => p === pkg || p.startsWith(`${pkg}/`))).toEqual([]);
  });
});
