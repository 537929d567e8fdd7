// A relay over TLS as a team runs it on the internet: the bundled CLI as a child process with the
// test certificate that scripts/run-integration.mjs made (its CA is trusted by this extension host
// through NODE_EXTRA_CA_CERTS). Restartable on the same port and data folder (a cut connection).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TlsRelay {
  port: number;
  url: string;
  /** The admin token (from the data folder). */
  token: string;
  dataDir: string;
  /** kill -9, then start again on the same port and data folder. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export function tlsDir(): string {
  const dir = process.env.SERVICE_HOOKS_TEST_TLS_DIR;
  if (!dir || !process.env.NODE_EXTRA_CA_CERTS)
    throw new Error('SERVICE_HOOKS_TEST_TLS_DIR and NODE_EXTRA_CA_CERTS are not set: run the suite with npm run test:integration');
  return dir;
}

async function spawnRelay(cli: string, port: number, dataDir: string, extra: string[]): Promise<{ child: ChildProcess; port: number }> {
  const dir = tlsDir();
  const args = [cli, 'relay', '--port', String(port), '--data', dataDir, '--tls-cert', join(dir, 'server.crt'), '--tls-key', join(dir, 'server.key'), ...extra];
  const child = spawn(process.execPath, args, { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const listening = await new Promise<number>((resolve, reject) => {
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /relay listening on https:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the TLS relay exited (${code}): ${out.replace(/token[^\n]*/gi, 'token …')}`)));
  });
  return { child, port: listening };
}

export async function startTlsRelay(extensionPath: string, extra: string[] = [], atPort = 0): Promise<TlsRelay> {
  const cli = join(extensionPath, 'dist', 'cli.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'sh-tls-relay-'));
  let { child, port } = await spawnRelay(cli, atPort, dataDir, extra);
  const stop = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  };
  return {
    port,
    url: `https://127.0.0.1:${port}`,
    token: readFileSync(join(dataDir, 'token'), 'utf8').trim(),
    dataDir,
    async restart() {
      await stop('SIGKILL');
      ({ child } = await spawnRelay(cli, port, dataDir, extra));
    },
    close: () => stop('SIGTERM'),
  };
}
