// Bench helpers: the relay CLI bundled once, and a relay child process started on a free port.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import * as esbuild from 'esbuild';
import { parseRelayReady } from '../src/core/relay/ready';

export const ROOT = resolve(__dirname, '..');

/**
 * Bundles relay/cli.ts into `dir`/cli.js (one file: the commands are inlined); of the checkout at
 * `root` (default this one), with that checkout's node_modules.
 */
export async function bundleCli(dir: string, root = ROOT): Promise<string> {
  const cli = join(dir, 'cli.js');
  await esbuild.build({
    entryPoints: [join(root, 'relay/cli.ts')],
    outfile: cli,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'error',
  });
  return cli;
}

export interface Child {
  child: ChildProcess;
  port: number;
  /** Everything the child printed on stdout so far. */
  out: () => string;
  /** Everything it printed on stderr so far, when spawned with `stderr: 'pipe'` (else ''). */
  err: () => string;
}

/** A ready check over a child's stdout so far: the port it listens on, or undefined (not yet). */
export type ReadyCheck = (out: string) => number | undefined;

/** The relay's `--ready json` line (pass `--ready json` in its args). */
export const RELAY_READY: ReadyCheck = (out) => {
  const r = parseRelayReady(out);
  return r ? Number(new URL(r.url).port) : undefined;
};

/** Spawns `node [nodeArgs] script args…` and waits until `ready` finds the port it listens on (a RegExp: its group 1). */
export async function spawnListening(
  nodeArgs: string[],
  script: string,
  args: string[],
  ready: RegExp | ReadyCheck,
  stderr: 'inherit' | 'pipe' = 'inherit',
): Promise<Child> {
  const portOf: ReadyCheck =
    typeof ready === 'function'
      ? ready
      : (out) => {
          const m = ready.exec(out);
          return m ? Number(m[1]) : undefined;
        };
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], { stdio: ['ignore', 'pipe', stderr] });
  let out = '';
  let err = '';
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const port = await new Promise<number>((resolveP, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const port = portOf(out);
      if (port !== undefined) resolveP(port);
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, port, out: () => out, err: () => err };
}

/** Starts a benchmark's app on a free loopback port (keep-alive 30 s); resolves with its URL for `path`. */
export async function listenLocal(server: Server, path: string): Promise<string> {
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as { port: number }).port}${path}`;
}
