// Connecting the relay to a NATS JetStream cluster: `--store nats://h1:4222,nats://h2:4222`,
// credentials by `--nats-creds FILE` or in the URL (nats://user:pass@host), TLS by the scheme
// (tls://). Waits for the cluster (and its JetStream) and says so, instead of failing at start.
import { readFileSync } from 'node:fs';
import { connect, credsAuthenticator, type ConnectionOptions, type NatsConnection } from 'nats';
import { parseNatsServers } from './urls';

export { NatsUrlError, parseNatsServers } from './urls';

export interface NatsConnectOptions {
  /** Comma-separated nats:// or tls:// URLs. */
  servers: string;
  /** A .creds file (JWT + NKey seed), as `nats` and `nsc` write them. */
  credsFile?: string;
  log?: (line: string) => void;
  /** Stops the wait for the cluster. */
  signal?: AbortSignal;
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
