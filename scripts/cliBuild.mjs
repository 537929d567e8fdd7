// @ts-check
// The CLI's build, split so that a command loads only its own code: dist/cli.js holds the
// dispatcher and the command table (relay/cli.ts, relay/commandTable.ts); each command the
// table imports (`import('./commands/<name>')`) becomes dist/commands/<name>.js, required by
// dist/cli.js only when that command runs. `--help` therefore loads no command and no
// dependency (no undici, no ws, no yaml). Used by esbuild.mjs; tests may call it with another outdir.
import * as esbuild from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** @param {string} outdir @param {{ production?: boolean, metafile?: boolean }} [opts] */
export function cliBuildOptions(outdir, opts = {}) {
  const common = /** @type {const} */ ({
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: !opts.production,
    minify: !!opts.production,
    metafile: !!opts.metafile,
    logLevel: 'warning',
  });
  /** @type {Set<string>} */
  const commands = new Set();
  /** @type {esbuild.Plugin} */
  const splitCommands = {
    name: 'split-commands',
    setup(build) {
      build.onResolve({ filter: /^\.\/commands\/[\w-]+$/ }, (args) => {
        if (!args.importer.endsWith(join('relay', 'commandTable.ts'))) return undefined;
        const name = args.path.slice('./commands/'.length);
        commands.add(name);
        return { path: `./commands/${name}.js`, external: true };
      });
    },
  };
  const dispatcher = {
    ...common,
    entryPoints: ['relay/cli.ts'],
    outfile: join(outdir, 'cli.js'),
    banner: { js: '#!/usr/bin/env node' },
    plugins: [splitCommands],
    // import() of a command becomes require() (with esbuild's ES-module interop), so the
    // command bundle's `default` export arrives as `default`, not as Node's CJS namespace.
    supported: { 'dynamic-import': false },
  };
  /** The command bundles; call after the dispatcher was built (it names them). */
  const commandBundles = () => ({
    ...common,
    entryPoints: Object.fromEntries([...commands].map((n) => [n, `relay/commands/${n}.ts`])),
    outdir: join(outdir, 'commands'),
  });
  return { dispatcher, commandBundles };
}

/** Builds dist/cli.js and dist/commands/*.js (or the same under outdir). */
export async function buildCli(outdir = join(ROOT, 'dist'), opts = {}) {
  const { dispatcher, commandBundles } = cliBuildOptions(outdir, opts);
  const first = await esbuild.build(dispatcher);
  const second = await esbuild.build(commandBundles());
  return { dispatcher: first, commands: second };
}
