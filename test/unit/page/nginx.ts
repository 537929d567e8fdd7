// Debian's nginx for the page's tests: installed with apt-get when missing (as ../nats/natsServers.ts
// does for nats-server), run in the foreground from a temporary folder with a block the docs give,
// taken from the file, so the documented block is the one tested: docs/public-relay.md's (one relay)
// or docs/team-relay.md's `example: nginx.conf` (two relay instances over TLS).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDebianPackage } from '../../support/debianPackage';
import { ROOT, tempDir } from '../relay/support/helpers';
import { exampleBlock } from '../nats/docExample';
import { freePort } from '../../support/freePort'; // nginx cannot be told to pick a port

export const NGINX = '/usr/sbin/nginx';

/** The nginx block of docs/public-relay.md. */
export function documentedBlock(): string {
  const doc = readFileSync(join(ROOT, 'docs', 'public-relay.md'), 'utf8');
  const m = /\n```nginx\n([\s\S]*?)\n```/.exec(doc);
  if (!m) throw new Error('docs/public-relay.md has no ```nginx block');
  return m[1]!;
}

export interface Nginx {
  /** https://localhost:<port> */
  url: string;
  /** The upstream address (127.0.0.1:port) of each request nginx finished, in order (read from its access log). */
  upstreams(): string[];
  stop(): Promise<void>;
}

/** Replaces `from` (which must be there: a changed block fails loudly) in `text`. */
function swap(text: string, from: RegExp, to: string): string {
  if (!from.test(text)) throw new Error(`the documented nginx block no longer has ${from}; update test/unit/page/nginx.ts`);
  return text.replace(from, to);
}

/**
 * nginx in front of the relay at `relayPort` with the documented block: its own TLS certificate
 * and key, listening on a free loopback port. Resolves once it listens.
 */
export async function startNginx(relayPort: number, cert: string, key: string): Promise<Nginx> {
  const port = await freePort();
  let block = documentedBlock();
  block = swap(block, /listen 443 ssl;/, `listen 127.0.0.1:${port} ssl;`);
  block = swap(block, /server_name \S+;/, 'server_name localhost;');
  block = swap(block, /ssl_certificate\s+\S+;/, `ssl_certificate ${cert};`);
  block = swap(block, /ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${key};`);
  block = swap(block, /proxy_pass http:\/\/127\.0\.0\.1:8788;/, `proxy_pass http://127.0.0.1:${relayPort};`);
  return runNginx(block, port);
}

/**
 * nginx with docs/team-relay.md's block in front of the two TLS relays on `relayPorts`: `cert` and
 * `key` serve the browser side, and the relays' certificates are checked against `ca` under the
 * name `localhost` (which the test certificates carry). Resolves once it listens.
 */
export async function startTeamNginx(relayPorts: [number, number], certs: { cert: string; key: string; ca: string }): Promise<Nginx> {
  const port = await freePort();
  let block = exampleBlock('nginx.conf');
  block = swap(block, /listen 443 ssl;/, `listen 127.0.0.1:${port} ssl;`);
  block = swap(block, /server_name \S+;/, 'server_name localhost;');
  block = swap(block, /ssl_certificate\s+\/etc\/nginx\/tls\/hooks\.pem;/, `ssl_certificate ${certs.cert};`);
  block = swap(block, /ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${certs.key};`);
  block = swap(block, /proxy_ssl_trusted_certificate \S+;/, `proxy_ssl_trusted_certificate ${certs.ca};`);
  block = swap(block, /proxy_ssl_name hooks\.example\.com;/, 'proxy_ssl_name localhost;');
  block = swap(block, /server 10\.0\.0\.11:8788 /, `server 127.0.0.1:${relayPorts[0]} `);
  block = swap(block, /server 10\.0\.0\.12:8788 /, `server 127.0.0.1:${relayPorts[1]} `);
  return runNginx(block, port);
}

/**
 * Runs nginx in the foreground with `block` in its http section, and an access log of the test's own
 * (each request's upstream address) outside the block. Resolves once it listens (its pid file is
 * written after its sockets are open).
 */
async function runNginx(block: string, port: number): Promise<Nginx> {
  ensureDebianPackage(NGINX, 'nginx');
  const dir = tempDir('sh-nginx-');
  for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, d));
  const accessLog = join(dir, 'access.log');
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
master_process off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 256; }
http {
  log_format upstream '$upstream_addr';
  access_log ${accessLog} upstream;
  client_body_temp_path ${join(dir, 'body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
${block}
}
`,
  );
  const pidFile = join(dir, 'nginx.pid');
  let resolveWritten = () => {};
  const written = new Promise<void>((resolve) => (resolveWritten = resolve));
  const watcher = watch(dir, () => existsSync(pidFile) && resolveWritten());
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', conf, '-e', join(dir, 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = once(child, 'exit');
  await Promise.race([
    written.finally(() => watcher.close()),
    exited.then(([code]) => {
      watcher.close();
      const log = existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '';
      throw new Error(`nginx exited (${String(code)}) before it listened: ${stderr}${log}`);
    }),
  ]);
  return {
    url: `https://localhost:${port}`,
    upstreams: () => (existsSync(accessLog) ? readFileSync(accessLog, 'utf8').split('\n').filter(Boolean) : []),
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
