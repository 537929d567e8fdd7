// Real nats-server processes for the JetStream store's tests: one server, or a three-node
// JetStream cluster on loopback ports, each in its own temporary store folder. Installs Debian's
// nats-server with apt when it is missing (as the code-server harness does for its packages).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { ensureDebianPackage } from '../../support/debianPackage';
import { freePort } from '../../support/freePort';

export const NATS_SERVER = '/usr/sbin/nats-server';

/** Makes sure nats-server is installed (apt-get as root); throws with the reason otherwise. */
export function ensureNatsServer(): void {
  ensureDebianPackage(NATS_SERVER, 'nats-server');
}

export interface NatsNode {
  name: string;
  /** The client port nats-server chose at its first start (it keeps it on a restart). */
  port: number;
  url: string;
  /** The HTTP monitoring port (`-m`: /jsz, /varz), when started with `monitor`. */
  monitorPort?: number;
  /** A cluster node's route port. */
  clusterPort?: number;
  process: ChildProcess | undefined;
  /** Starts (or restarts) this node with its own store folder. Resolves once it accepts clients. */
  start(): Promise<void>;
  /** kill -9. */
  kill(): Promise<void>;
  /** SIGTERM, and resolves once it exited: a graceful stop, as an upgrade or a reboot does (the server writes its stores out). */
  terminate(): Promise<void>;
}

export interface NatsCluster {
  nodes: NatsNode[];
  /** Comma-separated client URLs, as `relay --store` takes them. */
  urls: string;
  stop(): Promise<void>;
}

/**
 * Starts `size` nats-server processes with JetStream; with size > 1 they form one cluster. With
 * `monitor`, each also serves its monitoring API (`-m`) on a loopback port of its own. The client
 * and monitoring ports are chosen by nats-server itself at the first start (-1, read from its
 * log: no port is probed and released here for another process to take meanwhile); a restarted
 * node keeps its ports. Only a cluster's route ports are reserved beforehand (freePort), since a
 * JetStream cluster node must be told its routes before it starts: probed and released, so another
 * process could take one meanwhile (rare on loopback; the cost of configured routes).
 */
export async function startNats(size = 1, o: { monitor?: boolean } = {}): Promise<NatsCluster> {
  ensureNatsServer();
  const root = mkdtempSync(join(tmpdir(), 'sh-nats-'));
  const routePorts = size > 1 ? await Promise.all(Array.from({ length: size }, () => freePort())) : [];
  const nodes: NatsNode[] = Array.from({ length: size }, (_, i) => {
    const name = `n${i + 1}`;
    const args = () => {
      const a = ['-a', '127.0.0.1', '-p', String(node.port || -1), '-n', name, '-js', '-sd', join(root, name)];
      if (o.monitor) a.push('-m', String(node.monitorPort ?? -1));
      if (size > 1) {
        a.push('--cluster_name', 'sh', '--cluster', `nats://127.0.0.1:${routePorts[i]}`);
        a.push(
          '--routes',
          routePorts
            .filter((_, j) => j !== i)
            .map((p) => `nats://127.0.0.1:${p}`)
            .join(','),
        );
      }
      return a;
    };
    const node: NatsNode = {
      name,
      port: 0,
      url: '',
      ...(size > 1 ? { clusterPort: routePorts[i] } : {}),
      process: undefined,
      start: () => startNode(node, args()),
      kill: () => killNode(node),
      terminate: () => killNode(node, 'SIGTERM'),
    };
    return node;
  });
  await Promise.all(nodes.map((n) => n.start()));
  await waitForJetStream(nodes.map((n) => n.url));
  return {
    nodes,
    urls: nodes.map((n) => n.url).join(','),
    async stop() {
      await Promise.all(nodes.map((n) => n.kill()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The ports a starting nats-server logs it listens on. */
function notePorts(node: NatsNode, log: string): void {
  const port = (re: RegExp) => {
    const m = re.exec(log);
    return m ? Number(m[1]) : undefined;
  };
  node.port = port(/Listening for client connections on [^\s]*:(\d+)/) ?? node.port;
  node.url = `nats://127.0.0.1:${node.port}`;
  node.monitorPort = port(/Starting http monitor on [^\s]*:(\d+)/) ?? node.monitorPort;
}

function startNode(node: NatsNode, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(NATS_SERVER, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    node.process = child;
    let log = '';
    const onData = (b: Buffer) => {
      log += b.toString();
      if (/Server is ready/.test(log)) {
        notePorts(node, log);
        child.stderr.off('data', onData);
        child.stderr.resume();
        resolve();
      }
    };
    child.stderr.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`nats-server ${node.name} exited (${code}) before it was ready:\n${log.slice(-2000)}`)));
  });
}

function killNode(node: NatsNode, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  const child = node.process;
  node.process = undefined;
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

/** Resolves once the JetStream API answers (a cluster first elects its metadata leader). */
export async function waitForJetStream(servers: string[]): Promise<void> {
  const nc = await connect({ servers, maxReconnectAttempts: -1 });
  try {
    const jsm = await jetstreamManager(nc, { timeout: 1000 }).catch(() => undefined);
    for (let tries = 0; ; tries++) {
      try {
        await (jsm ?? (await jetstreamManager(nc, { timeout: 1000 }))).getAccountInfo();
        return;
      } catch (err) {
        if (tries > 60) throw new Error(`JetStream did not become available: ${(err as Error).message}`, { cause: err });
      }
    }
  } finally {
    await nc.close();
  }
}

/**
 * Resolves once `stream` has a leader and `replicas - 1` current peers (pass the live servers' count
 * after a kill), as after restarted nodes
 * rejoin. nats-server announces this on no subject a client can await, so this asks the stream
 * info API every 250 ms (bounded: 30 s).
 */
export async function waitForStreamQuorum(servers: string[], stream: string, replicas: number): Promise<void> {
  const nc = await connect({ servers, maxReconnectAttempts: -1 });
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const info = await jetstreamManager(nc, { timeout: 1000 })
        .then((jsm) => jsm.streams.info(stream))
        .catch(() => undefined);
      const current = info?.cluster?.replicas?.filter((r) => r.current && !r.offline).length ?? 0;
      if (info?.cluster?.leader && current >= replicas - 1) return;
      if (Date.now() > deadline) throw new Error(`stream ${stream} has no quorum after 30 s`);
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    await nc.close();
  }
}
