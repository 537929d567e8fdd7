// Debian's haproxy for the balancer test: installed with apt-get when missing (as ./natsServers.ts
// does for nats-server and ../page/nginx.ts for nginx), run in the foreground with the
// configuration docs/team-relay.md documents (its `<!-- example: haproxy.cfg -->` block), in which
// only this machine's addresses and files are put. A global section of the test's own adds a stats
// socket, through which the test sees which instance took what (`show stat`).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { ensureDebianPackage } from '../../support/debianPackage';
import { tempDir } from '../relay/support/helpers';
import { exampleBlock, type ExampleCerts } from './docExample';
import { freePort } from '../../support/freePort';

export const HAPROXY = '/usr/sbin/haproxy';

/** One backend server's row of `show stat`. */
export interface ServerStat {
  /** UP, DOWN, … */
  status: string;
  /** Sessions in all. */
  stot: number;
}

export interface Haproxy {
  /** https://127.0.0.1:<port> */
  url: string;
  /** The backend's servers by name (relay1, relay2). */
  servers(): Promise<Record<string, ServerStat>>;
  output(): string;
  stop(): Promise<void>;
}

/** Replaces `from` (which must be there: a changed block fails loudly) in `text`. */
function swap(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`the documented haproxy.cfg no longer has '${from}'; update test/unit/nats/haproxy.ts`);
  return text.replaceAll(from, to);
}

/** haproxy with the documented configuration in front of the relays on `relayPorts` (relay1, relay2), on a free loopback port. */
export async function startHaproxy(relayPorts: [number, number], certs: ExampleCerts): Promise<Haproxy> {
  ensureDebianPackage(HAPROXY, 'haproxy');
  const dir = tempDir('sh-haproxy-');
  const pem = join(dir, 'hooks.pem');
  writeFileSync(pem, readFileSync(certs.cert, 'utf8') + readFileSync(certs.key, 'utf8'), { mode: 0o600 });
  const port = await freePort();
  let cfg = exampleBlock('haproxy.cfg');
  cfg = swap(cfg, 'bind :443 ', `bind 127.0.0.1:${port} `);
  cfg = swap(cfg, '/etc/haproxy/hooks.pem', pem);
  cfg = swap(cfg, '/etc/haproxy/relay-ca.pem', certs.ca);
  cfg = swap(cfg, '10.0.0.11:8788', `127.0.0.1:${relayPorts[0]}`);
  cfg = swap(cfg, '10.0.0.12:8788', `127.0.0.1:${relayPorts[1]}`);
  const sock = join(dir, 'admin.sock');
  const conf = join(dir, 'haproxy.cfg');
  writeFileSync(conf, `global\n  stats socket ${sock} mode 600 level admin\n\n${cfg}`);
  const check = spawnSync(HAPROXY, ['-c', '-f', conf], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy refuses the documented configuration:\n${check.stdout}${check.stderr}`);
  const child: ChildProcess = spawn(HAPROXY, ['-db', '-f', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = once(child, 'exit');
  // Listening once its stats socket is there (it binds its listeners first).
  let made = () => {};
  const socketMade = new Promise<void>((resolve) => (made = resolve));
  const watcher = watch(dir, () => existsSync(sock) && made());
  if (existsSync(sock)) made();
  await Promise.race([
    socketMade.finally(() => watcher.close()),
    exited.then(([code]) => {
      watcher.close();
      throw new Error(`haproxy exited (${String(code)}) before it listened:\n${out}`);
    }),
  ]);
  const servers = () => stats(sock);
  return {
    url: `https://127.0.0.1:${port}`,
    servers,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/** `show stat` on the stats socket: the backend servers' rows. */
async function stats(sock: string): Promise<Record<string, ServerStat>> {
  const s = createConnection(sock);
  await once(s, 'connect');
  s.end('show stat\n');
  let text = '';
  for await (const chunk of s) text += (chunk as Buffer).toString();
  const [header, ...rows] = text.trim().split('\n');
  const cols = header!.replace(/^# /, '').split(',');
  const at = (name: string) => cols.indexOf(name);
  const out: Record<string, ServerStat> = {};
  for (const row of rows) {
    const v = row.split(',');
    if (v[at('pxname')] !== 'relays' || v[at('svname')] === 'BACKEND') continue;
    out[v[at('svname')]!] = { status: v[at('status')]!, stot: Number(v[at('stot')]) };
  }
  return out;
}
