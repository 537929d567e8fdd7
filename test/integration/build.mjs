// Builds the integration suite for the extension host: test/integration/suite/index.ts →
// dist/test/integration/suite/index.js (vscode and node_modules external: resolved from the repo).
// Called by scripts/run-integration.mjs (and test/integration/runTest.ts) after `npm run build`.
import * as esbuild from 'esbuild';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

await esbuild.build({
  absWorkingDir: root,
  entryPoints: ['test/integration/suite/index.ts'],
  outfile: 'dist/test/integration/suite/index.js',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'inline',
  packages: 'external',
  external: ['vscode'],
  logLevel: 'warning',
});
