// @ts-check
// The relay's channel page (relay/web → <outdir>/app.js + app.css): one minified browser bundle,
// no external resource, so the relay can serve it under a strict CSP. Used by esbuild.mjs (into
// dist/page, beside the CLI that serves it) and by tests with another outdir.
import * as esbuild from 'esbuild';
import { renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** @param {string} outdir @returns {esbuild.BuildOptions} */
export function pageBuildOptions(outdir) {
  return {
    absWorkingDir: ROOT,
    entryPoints: { app: 'relay/web/main.ts', 'app-style': 'relay/web/app.css' },
    outdir,
    entryNames: '[name]',
    bundle: true,
    platform: 'browser',
    target: ['chrome110', 'firefox110', 'safari16'],
    format: 'iife',
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
  };
}

/** Builds the page into `outdir` (app.js, app.css); resolves with their sizes in bytes. */
export async function buildPage(outdir) {
  const result = await esbuild.build({ ...pageBuildOptions(outdir), metafile: true });
  /** @type {Record<string, number>} */
  const sizes = {};
  for (const [file, out] of Object.entries(result.metafile?.outputs ?? {})) sizes[file.replace(/^.*\//, '').replace('app-style', 'app')] = out.bytes;
  renameSync(join(outdir, 'app-style.css'), join(outdir, 'app.css'));
  return sizes;
}
