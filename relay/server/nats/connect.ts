// Connecting the relay to a NATS JetStream cluster: `--store nats://h1:4222,nats://h2:4222`,
// credentials by `--nats-creds FILE` or in the URL (nats://user:pass@host), TLS by the scheme
// (tls://). Waits for the cluster (and its JetStream) and says so, instead of failing at start.
import { readFileSync } from 'node:fs';
import { connect, credsAuthenticator, type ConnectionOptions, type NatsConnection } from 'nats';

export interface NatsConnectOptions {
  /** Comma-separated nats:// or tls:// URLs. */
  servers: string;
  /** A .creds file (JWT + NKey seed), as `nats` and `nsc` write them. */
  credsFile?: string;
  log?: (line: string) => void;
  /** Stops the wait for the cluster. */
  signal?: AbortSignal;
}

/** A `--store` value that names no usable NATS server. */
export class NatsUrlError extends Error {
  override name = 'NatsUrlError';
}

export function parseNatsServers(value: string): { servers: string[]; user?: string; pass?: string; tls: boolean } {
  const servers: string[] = [];
  let user: string | undefined;
  let pass: string | undefined;
  let tls = false;
  for (const raw of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw new NatsUrlError(`--store: '${raw}' is not a URL (expected nats://HOST:PORT or tls://HOST:PORT)`);
    }
    if (u.protocol !== 'nats:' && u.protocol !== 'tls:') throw new NatsUrlError(`--store: '${u.protocol}' is not a NATS scheme (nats:// or tls://)`);
    if (!u.hostname) throw new NatsUrlError(`--store: '${raw}' has no host`);
    if (u.username) user = decodeURIComponent(u.username);
    if (u.password) pass = decodeURIComponent(u.password);
    if (u.protocol === 'tls:') tls = true;
    servers.push(`${u.hostname.includes(':') ? `[${u.hostname}]` : u.hostname}:${u.port || '4222'}`);
  }
  if (servers.length === 0) throw new NatsUrlError('--store: no NATS server given');
  return { servers, ...(user !== undefined ? { user } : {}), ...(pass !== undefined ? { pass } : {}), tls };
}

/** Connects (waiting as long as it takes, logging every 10 s), then waits for JetStream to answer. */
export async function connectNats(o: NatsConnectOptions): Promise<NatsConnection> {
  const { servers, user, pass, tls } = parseNatsServers(o.servers);
  const opts: ConnectionOptions = {
    servers,
    name: 'service-hooks-relay',
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: true,
    ...(user !== undefined ? { user } : {}),
    ...(pass !== undefined ? { pass } : {}),
    ...(tls ? { tls: {} } : {}),
    ...(o.credsFile ? { authenticator: credsAuthenticator(readFileSync(o.credsFile)) } : {}),
  };
  const where = servers.join(', ');
  o.log?.(`store: connecting to NATS at ${where}…`);
  const waiting = setInterval(() => o.log?.(`store: still waiting for NATS at ${where}`), 10_000);
  try {
    const nc = await connect(opts);
    await waitForJetStream(nc, o);
    o.log?.(`store: NATS JetStream at ${nc.getServer()}`);
    return nc;
  } finally {
    clearInterval(waiting);
  }
}

async function waitForJetStream(nc: NatsConnection, o: NatsConnectOptions): Promise<void> {
  let said = false;
  for (;;) {
    if (o.signal?.aborted) throw new Error('stopped while waiting for NATS JetStream');
    try {
      const jsm = await nc.jetstreamManager({ timeout: 2000 });
      await jsm.getAccountInfo();
      return;
    } catch (err) {
      if (!said) o.log?.(`store: waiting for JetStream (${(err as Error).message}); is it enabled (-js) and does the cluster have a leader?`);
      said = true;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
