// Types of scripts/cliBuild.mjs for the TypeScript tests that build the CLI with it.
import type { BuildOptions, BuildResult } from 'esbuild';

export interface CliBuildOpts {
  production?: boolean;
  metafile?: boolean;
}
export function cliBuildOptions(outdir: string, opts?: CliBuildOpts): { dispatcher: BuildOptions; commandBundles: () => BuildOptions };
export function buildCli(outdir?: string, opts?: CliBuildOpts): Promise<{ dispatcher: BuildResult; commands: BuildResult }>;
