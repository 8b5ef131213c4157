// `npm run build -w server`: the server as plain JavaScript in server/dist (what `npm start`
// runs). esbuild bundles our own code and the shared contract (TypeScript source, imported as
// `@wa/contract`); every other package stays an import from node_modules.
// `node scripts/build.mjs DIR`: the same into server/DIR (the test suites' build of their run).
import path from 'node:path';
import { build } from 'esbuild';

const serverDir = path.resolve(import.meta.dirname, '..');
const ownPackages = /^@wa\//;
const outdir = process.argv[2] ?? 'dist';

await build({
  absWorkingDir: serverDir,
  entryPoints: ['src/main.ts', 'src/demo.ts', 'src/cli.ts'],
  outdir,
  bundle: true,
  // Dynamic imports stay dynamic (chunks): Baileys (~60 MB resident) loads with the first
  // WhatsApp session, not at start; without splitting esbuild hoists it into main.js. One static
  // import of a module that imports it puts it back: test/operations/start-imports.test.ts.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: true,
  logLevel: 'warning',
  plugins: [
    {
      name: 'node-modules-external',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) =>
          ownPackages.test(args.path) ? undefined : { path: args.path, external: true },
        );
      },
    },
  ],
});
console.log(`server built into server/${outdir}`);
