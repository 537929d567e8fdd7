// Connecting the relay to a NATS JetStream cluster: `--store nats://h1:4222,nats://h2:4222`,
// credentials by `--nats-creds FILE` or in the URL (nats://user:pass@host), TLS by the scheme
// (tls://). Waits for the cluster (and its JetStream) and says so, instead of failing at start.
import { readFileSync } from 'node:fs';
import { AuthorizationError, connect, credsAuthenticator, type NatsConnection, type NodeConnectionOptions } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
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
  const opts: NodeConnectionOptions = {
    servers,
    name: 'service-hooks-relay',
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // A server that hangs (a paused or overloaded machine) keeps its TCP connection open: the
    // client notices only when pings go unanswered. At the client's defaults (every 2 min, two
    // outstanding) that took minutes; every 2 s, two outstanding, takes at most about 6 s.
    pingInterval: 2000,
    maxPingOut: 2,
    // How long one dial may take, to the server's INFO. A hung server still completes the TCP
    // handshake (its kernel does), so at the client's 20 s default a reconnect that picked it
    // waited there: in issue 21's paused-leader runs the relay came back to the paused server
    // when it resumed, 15 s later, instead of to one of the two that were serving.
    timeout: 2000,
    ...(user !== undefined ? { user } : {}),
    ...(pass !== undefined ? { pass } : {}),
    ...(tls ? { tls: {} } : {}),
    ...(o.credsFile ? { authenticator: credsAuthenticator(readFileSync(o.credsFile)) } : {}),
  };
  const where = servers.join(', ');
  o.log?.(`store: connecting to NATS at ${where}…`);
  const waiting = setInterval(() => o.log?.(`store: still waiting for NATS at ${where}`), 10_000);
  try {
    const nc = await firstConnect(opts, o.signal);
    await waitForJetStream(nc, o).catch(async (err: unknown) => {
      await nc.close().catch(() => undefined);
      throw err;
    });
    o.log?.(`store: NATS JetStream at ${nc.getServer()}`);
    return nc;
  } finally {
    clearInterval(waiting);
  }
}

/**
 * Tries the servers every 500 ms until one answers. Not the client's own waitOnFirstConnect: that
 * wait cannot be stopped, so SIGINT/SIGTERM did not stop a relay whose cluster was not there yet.
 */
async function firstConnect(opts: NodeConnectionOptions, signal: AbortSignal | undefined): Promise<NatsConnection> {
  for (;;) {
    if (signal?.aborted) throw new NatsWaitAborted();
    const attempt = connect(opts);
    try {
      return await untilAborted(attempt, signal);
    } catch (err) {
      if (err instanceof NatsWaitAborted) {
        void attempt.then(
          (nc) => nc.close(),
          () => undefined,
        );
        throw err;
      }
      if (err instanceof AuthorizationError) throw new Error(`NATS refused the credentials (${(err as Error).message})`, { cause: err });
    }
    await untilAborted(new Promise((r) => setTimeout(r, 500)), signal);
  }
}

/** Thrown when the wait for NATS is stopped (the relay is asked to stop before it started). */
export class NatsWaitAborted extends Error {
  override name = 'NatsWaitAborted';
  constructor() {
    super('stopped while waiting for NATS');
  }
}

function untilAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new NatsWaitAborted());
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function waitForJetStream(nc: NatsConnection, o: NatsConnectOptions): Promise<void> {
  let said = false;
  for (;;) {
    if (o.signal?.aborted) throw new NatsWaitAborted();
    try {
      await jetstreamManager(nc, { timeout: 2000 }); // asks for the account's JetStream info
      return;
    } catch (err) {
      if (!said) o.log?.(`store: waiting for JetStream (${(err as Error).message}); is it enabled (-js) and does the cluster have a leader?`);
      said = true;
      await untilAborted(new Promise((r) => setTimeout(r, 500)), o.signal);
    }
  }
}
