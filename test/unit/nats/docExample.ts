// docs/team-relay.md's safe set-up, read from the page itself and started on this machine: its
// marked blocks (`<!-- example: NAME -->` before a fenced block) with only what a machine of one's
// own must change put in (host names → 127.0.0.1 and ports of this machine, /etc/… → files the
// test makes, placeholders → random values). Nothing else of the text is changed.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from '../relay/support/helpers';
import { ensureNatsServer, NATS_SERVER } from './natsServers';
import { freePort } from '../../support/freePort';

const DOC = join(ROOT, 'docs/team-relay.md');

/** The fenced block after `<!-- example: name -->` in docs/team-relay.md. */
export function exampleBlock(name: string): string {
  const text = readFileSync(DOC, 'utf8');
  const at = text.indexOf(`<!-- example: ${name} -->`);
  if (at < 0) throw new Error(`docs/team-relay.md has no block marked 'example: ${name}'`);
  const m = /```[a-z]*\n([\s\S]*?)```/.exec(text.slice(at));
  if (!m) throw new Error(`docs/team-relay.md: no fenced block after 'example: ${name}'`);
  return m[1]!;
}

export interface ExampleCerts {
  dir: string;
  ca: string;
  cert: string;
  key: string;
}

/** A CA and one certificate for 127.0.0.1, localhost and nats1–3, good for a server and a client (NATS routes verify it both ways). */
export function exampleCerts(): ExampleCerts {
  const dir = tempDir('sh-team-tls-');
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=team example CA']);
  run(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'req.csr', '-subj', '/CN=127.0.0.1']);
  writeFileSync(
    join(dir, 'ext.cnf'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:nats1,DNS:nats2,DNS:nats3\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth,clientAuth\n',
  );
  run(['x509', '-req', '-in', 'req.csr', '-CA', 'ca.pem', '-CAkey', 'ca-key.pem', '-CAcreateserial', '-out', 'cert.pem', '-days', '1', '-extfile', 'ext.cnf']);
  return { dir, ca: join(dir, 'ca.pem'), cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
}

export interface ExampleNats {
  /** Client ports, nats1 to nats3. */
  ports: number[];
  password: string;
  processes: ChildProcess[];
  stop(): void;
}

/** The page's nats.conf, one per server, as the page says ("change server_name"), on this machine's ports. */
export async function startExampleNats(certs: ExampleCerts): Promise<ExampleNats> {
  ensureNatsServer();
  const conf = exampleBlock('nats.conf');
  const ports = [await freePort(), await freePort(), await freePort()];
  const routes = [await freePort(), await freePort(), await freePort()];
  // Starting with a letter, as the page says: nats-server reads a value like 0e12… or 123 as a number.
  const password = 'p' + randomBytes(16).toString('hex');
  const processes: ChildProcess[] = [];
  const ready: Promise<void>[] = [];
  for (let i = 0; i < 3; i++) {
    const dir = tempDir(`sh-team-nats${i + 1}-`);
    let text = conf
      .replace('server_name: nats1', `server_name: nats${i + 1}`)
      .replace('listen: 0.0.0.0:4222', `listen: 127.0.0.1:${ports[i]}`)
      .replace('listen: 0.0.0.0:6222', `listen: 127.0.0.1:${routes[i]}`)
      .replaceAll('/etc/nats/tls/server.pem', certs.cert)
      .replaceAll('/etc/nats/tls/server-key.pem', certs.key)
      .replaceAll('/etc/nats/tls/ca.pem', certs.ca)
      .replace('/var/lib/nats', join(dir, 'js'));
    for (let j = 0; j < 3; j++) text = text.replace(`nats://nats${j + 1}:6222`, `nats://127.0.0.1:${routes[j]}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'nats.conf'), text);
    const child = spawn(NATS_SERVER, ['-c', join(dir, 'nats.conf')], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, RELAY_NATS_PASSWORD: password },
    });
    processes.push(child);
    ready.push(
      new Promise((resolve, reject) => {
        let log = '';
        child.stderr!.on('data', (b: Buffer) => {
          log += b.toString();
          if (/Server is ready/.test(log)) resolve();
        });
        child.once('exit', (code) => reject(new Error(`nats-server nats${i + 1} exited with ${code}:\n${log.slice(-1500)}`)));
      }),
    );
  }
  await Promise.all(ready);
  return {
    ports,
    password,
    processes,
    stop: () => {
      for (const p of processes) p.kill('SIGKILL');
    },
  };
}

export interface ExampleRelaySetup {
  /** The relay's environment from the page's relay.env (and this process's PATH etc.). */
  env: NodeJS.ProcessEnv;
  adminToken: string;
  /** Channel name → its secret, from the page's channels.json. */
  secrets: Record<string, string>;
  /** The page's `service-hooks relay …` arguments for one instance (its own --data), with --port 0 and --ready json added. */
  args(dataDir: string, extra?: string[]): string[];
}

/** The page's relay.env, channels.json and relay command, with this machine's files and random secrets. */
export function exampleRelay(certs: ExampleCerts, nats: ExampleNats): ExampleRelaySetup {
  const adminToken = randomBytes(32).toString('hex');
  let envText = exampleBlock('relay.env')
    .replaceAll('replace-with-the-output-of-openssl-rand-hex-32', adminToken)
    .replaceAll('replace-with-the-nats-password', nats.password)
    .replaceAll('/etc/service-hooks/tls/ca.pem', certs.ca);
  for (let j = 0; j < 3; j++) envText = envText.replaceAll(`nats${j + 1}:4222`, `127.0.0.1:${nats.ports[j]}`);
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const line of envText.split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m) env[m[1]!] = m[2]!;
  }
  let channelsText = exampleBlock('channels.json');
  const secrets: Record<string, string> = {};
  const channels = (JSON.parse(channelsText) as { channels: Record<string, { secrets: string[] }> }).channels;
  for (const [name, c] of Object.entries(channels)) {
    const secret = randomBytes(32).toString('hex');
    channelsText = channelsText.replace(c.secrets[0]!, secret);
    secrets[name] = secret;
  }
  const channelsFile = join(tempDir('sh-team-channels-'), 'channels.json');
  writeFileSync(channelsFile, channelsText, { mode: 0o600 });
  const words = exampleBlock('relay').replace(/\\\n/g, ' ').trim().split(/\s+/);
  if (words[0] !== 'service-hooks' || words[1] !== 'relay')
    throw new Error(`the page's relay block does not start with 'service-hooks relay': ${words.join(' ')}`);
  const files: Record<string, string> = {
    '/etc/service-hooks/tls/relay.pem': certs.cert,
    '/etc/service-hooks/tls/relay-key.pem': certs.key,
    '/etc/service-hooks/channels.json': channelsFile,
  };
  return {
    env,
    adminToken,
    secrets,
    args: (dataDir, extra = []) => [...words.slice(2).map((w) => (w === '/var/lib/service-hooks' ? dataDir : (files[w] ?? w))), ...extra],
  };
}
