// One build script: the extension (vscode external), the CLI (scripts/cliBuild.mjs: a small
// dispatcher dist/cli.js plus one bundle per command in dist/commands/) and the relay's channel
// page (scripts/pageBuild.mjs: dist/page/app.js + app.css, served by the relay).
import * as esbuild from 'esbuild';
import { buildCli, cliBuildOptions } from './scripts/cliBuild.mjs';
import { buildPage } from './scripts/pageBuild.mjs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const extension = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  entryPoints: ['src/extension.ts'],
  outfile: 'dist/extension.js',
  external: ['vscode'],
};

if (watch) {
  const { dispatcher, commandBundles } = cliBuildOptions('dist', { production });
  await (await esbuild.context(extension)).watch();
  await esbuild.build(dispatcher); // names the command bundles
  await (await esbuild.context(dispatcher)).watch();
  await (await esbuild.context(commandBundles())).watch();
} else {
  await Promise.all([esbuild.build(extension), buildCli('dist', { production }), buildPage('dist/page')]);
}
