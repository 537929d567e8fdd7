// Bench helpers: the relay CLI bundled once, and a relay child process started on a free port.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import * as esbuild from 'esbuild';

export const ROOT = resolve(__dirname, '..');

/** Bundles relay/cli.ts into `dir`/cli.js (one file: the commands are inlined). */
export async function bundleCli(dir: string): Promise<string> {
  const cli = join(dir, 'cli.js');
  await esbuild.build({ entryPoints: [join(ROOT, 'relay/cli.ts')], outfile: cli, bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'error' });
  return cli;
}

export interface Child {
  child: ChildProcess;
  port: number;
  /** Everything the child printed on stdout so far. */
  out: () => string;
}

/** Spawns `node [nodeArgs] script args…` and waits for a line matching `ready` (its group 1 is the port). */
export async function spawnListening(nodeArgs: string[], script: string, args: string[], ready: RegExp): Promise<Child> {
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const port = await new Promise<number>((resolveP, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = ready.exec(out);
      if (m) resolveP(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, port, out: () => out };
}

export const RELAY_READY = /relay listening on http:\/\/127\.0\.0\.1:(\d+)/;

/** Starts a benchmark's app on a free loopback port (keep-alive 30 s); resolves with its URL for `path`. */
export async function listenLocal(server: Server, path: string): Promise<string> {
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as { port: number }).port}${path}`;
}
