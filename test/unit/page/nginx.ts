// Debian's nginx for the page's tests: installed with apt-get when missing (as ../nats/natsServers.ts
// does for nats-server), run in the foreground from a temporary folder with the server block that
// docs/public-relay.md documents, taken from that file, so the documented block is the one tested.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDebianPackage } from '../../support/debianPackage';
import { ROOT, tempDir } from '../relay/support/helpers';
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
  stop(): Promise<void>;
}

/** Replaces `from` (which must be there: a changed block fails loudly) in `text`. */
function swap(text: string, from: RegExp, to: string): string {
  if (!from.test(text)) throw new Error(`the documented nginx block no longer has ${from}; update test/unit/page/nginx.ts`);
  return text.replace(from, to);
}

/**
 * nginx in front of the relay at `relayPort` with the documented block: its own TLS certificate
 * and key, listening on a free loopback port. Resolves once it listens (its pid file is written
 * after its sockets are open).
 */
export async function startNginx(relayPort: number, cert: string, key: string): Promise<Nginx> {
  ensureDebianPackage(NGINX, 'nginx');
  const dir = tempDir('sh-nginx-');
  for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, d));
  const port = await freePort();
  let block = documentedBlock();
  block = swap(block, /listen 443 ssl;/, `listen 127.0.0.1:${port} ssl;`);
  block = swap(block, /server_name \S+;/, 'server_name localhost;');
  block = swap(block, /ssl_certificate\s+\S+;/, `ssl_certificate ${cert};`);
  block = swap(block, /ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${key};`);
  block = swap(block, /proxy_pass http:\/\/127\.0\.0\.1:8788;/, `proxy_pass http://127.0.0.1:${relayPort};`);
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
master_process off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 256; }
http {
  access_log off;
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
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
