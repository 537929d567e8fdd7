// Test helpers: a recording target app, a relay child process (the bundled CLI), signed posts.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import { Agent, request } from 'undici';
import WebSocket from 'ws';
import { sign } from '../../../../src/core/signing';
import { makeTempDir } from '../../tempDirs';
import { until } from '../../../support/until';
import { childOutput, type ChildOutput } from '../../../support/childOutput';
import { formatRelayReady, parseRelayReady, tokenFilePath, type RelayReady } from '../../../../src/core/relay/ready';
import { startRelay, type RelayServer } from '../../../../relay/server';

export const ROOT = resolve(__dirname, '../../../..');

// `service-hooks forward` keeps its resume point under $XDG_STATE_HOME: the tests' children keep
// theirs in a folder of this run, never in the developer's own.
process.env.XDG_STATE_HOME = makeTempDir('sh-state-');

export function tempDir(prefix = 'sh-relay-test-'): string {
  return makeTempDir(prefix);
}

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
  /** Status the app answered. */
  status?: number;
}

export interface TargetApp {
  url: string;
  port: number;
  received: Received[];
  /** Status answered to the next requests (default 200). */
  status: number;
  /** When set, decides the status of each request instead of `status`. */
  statusFor?: (r: Received, all: Received[]) => number;
  /** When set and it returns a promise, the answer to that request waits for it. */
  hold?: (r: Received, all: Received[]) => Promise<void> | undefined;
  /** Resolves once `n` requests in total have been received. */
  waitFor(n: number): Promise<void>;
  /** Resolves once `pred` holds for the received list. */
  waitUntil(pred: (r: Received[]) => boolean): Promise<void>;
  close(): Promise<void>;
}

export async function startTarget(port = 0): Promise<TargetApp> {
  const waiters: (() => void)[] = [];
  const app: TargetApp = {
    url: '',
    port: 0,
    received: [],
    status: 200,
    waitFor: (n) => app.waitUntil((r) => r.length >= n),
    waitUntil: (pred) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (pred(app.received)) resolve();
          else waiters.push(check);
        };
        check();
      }),
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { path: req.url ?? '/', headers: req.headers, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks) };
      app.received.push(r);
      r.status = app.statusFor ? app.statusFor(r, app.received) : app.status;
      const answer = () => res.writeHead(r.status!, { 'content-type': 'text/plain' }).end('ok');
      const held = app.hold?.(r, app.received);
      if (held) void held.then(answer);
      else answer();
      for (const w of waiters.splice(0)) w();
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  app.port = (server.address() as { port: number }).port;
  app.url = `http://127.0.0.1:${app.port}/webhook`;
  return app;
}

let cliPath: string | undefined;

/** Bundles relay/cli.ts once per run (so the tests do not depend on the rest of the build). */
export async function cli(): Promise<string> {
  if (cliPath && existsSync(cliPath)) return cliPath;
  const esbuild = await import('esbuild');
  const out = join(makeTempDir('sh-relay-cli-', 'run'), 'cli.js');
  await esbuild.build({
    entryPoints: [join(ROOT, 'relay/cli.ts')],
    outfile: out,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'error',
  });
  cliPath = out;
  return out;
}

export interface RelayProcess {
  child: ChildProcess;
  port: number;
  url: string;
  /** The relay's `--ready json` line. */
  ready: RelayReady;
  /** What the relay printed on stdout for people (its ready line for programs left out). */
  stdout: () => string;
  stderr: () => string;
  /** Resolves once what it printed matches `re` (see ChildOutput.saw); rejects if it exits first. */
  saw: ChildOutput['saw'];
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Spawns `node cli.js relay --port 0 --ready json …` (this process's environment, or `env`) and waits
 * for its ready line. `o.cli`: another copy of the bundle (one with the page's assets beside it).
 */
export async function spawnRelay(args: string[], env?: NodeJS.ProcessEnv, o: { cli?: string } = {}): Promise<RelayProcess> {
  const child = spawn(process.execPath, [o.cli ?? (await cli()), 'relay', '--port', '0', '--ready', 'json', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(env ? { env } : {}),
  });
  const output = childOutput(child, 'relay');
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const ready = await new Promise<RelayReady>((resolve, reject) => {
    child.stdout!.on('data', () => {
      const r = parseRelayReady(output.stdout());
      if (r) resolve(r);
    });
    void exited.then((code) => reject(new Error(`relay exited with ${code}: ${output.stderr()}`)));
  });
  const readyLine = formatRelayReady(ready) + '\n';
  return {
    child,
    port: Number(new URL(ready.url).port),
    url: ready.url,
    ready,
    stdout: () => output.stdout().replace(readyLine, ''),
    stderr: output.stderr,
    saw: output.saw,
    exited,
    stop: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export async function post(url: string, body: Uint8Array | string, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown }> {
  const res = await request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.body.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.statusCode, json };
}

export function signed(secret: string, body: Uint8Array | string, extra: Record<string, string> = {}): Record<string, string> {
  return { 'x-service-signature': sign(secret, body), ...extra };
}

/**
 * Posts one delivery signed with `secret` to channel default of a relay that may be killed at any
 * moment: its seq when answered 200, else undefined (refused, or the relay gone mid-request:
 * nothing was promised).
 */
export async function deliverSigned(url: string, secret: string, body: string, agent: Agent): Promise<number | undefined> {
  try {
    const res = await request(`${url}/hooks/default`, {
      method: 'POST',
      body,
      headers: { ...signed(secret, body), 'content-type': 'application/json' },
      dispatcher: agent,
    });
    const json = (await res.body.json()) as { seq?: number };
    return res.statusCode === 200 ? json.seq : undefined;
  } catch {
    return undefined;
  }
}

/** Resolves once every forward of delivery `seq` has reached a final state ('ok' or 'failed'). */
export function settled(store: import('../../../../relay/server/base/storeTypes').RelayStore, seq: number): Promise<void> {
  return until(
    () => {
      const e = store.get(seq);
      return e && e.summary.forward.every((f) => f.status !== 'pending') ? true : undefined;
    },
    (wake) => {
      store.on('forward', wake);
      return () => store.off('forward', wake);
    },
  ).then(() => undefined);
}

/**
 * A relay of its own (in this process, defaults, a fresh data folder) for each test of the calling
 * describe block, closed after the test. Returns the current test's relay.
 */
export function relayPerTest(): () => RelayServer {
  let relay: RelayServer | undefined;
  beforeEach(async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir() });
  });
  afterEach(async () => {
    await relay?.close();
    relay = undefined;
  });
  return () => relay!;
}

/**
 * Runs `node cli.js ARGS` to its end with a bare environment: PATH and `env` only (no token or
 * data folder of the machine leaks in). The exit code is 0, or the child's code (1 when it has none).
 */
export async function runCliBare(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const path = await cli();
  return new Promise((resolve) => {
    execFile(process.execPath, [path, ...args], { env: { PATH: process.env.PATH, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A relay process on a data folder of its own (`<tmp>/relay-data`), with the admin token it wrote there. */
export async function spawnRelayWithData(args: string[] = []): Promise<{ relay: RelayProcess; data: string; admin: string }> {
  const data = join(tempDir(), 'relay-data');
  const relay = await spawnRelay(['--data', data, ...args]);
  return { relay, data, admin: readFileSync(tokenFilePath(data), 'utf8').trim() };
}

/** Where a describe block puts the relay processes it starts: each is killed (-9) once its tests are done. */
export function relayProcesses(): RelayProcess[] {
  const procs: RelayProcess[] = [];
  after(async () => {
    for (const p of procs) await p.stop('SIGKILL');
  });
  return procs;
}

/** Opens a raw WebSocket and reports how the upgrade ended: 'open' or the HTTP status. */
export function tryConnect(url: string, opts: { headers?: Record<string, string>; protocols?: string[] } = {}): Promise<'open' | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, opts.protocols ?? [], { headers: opts.headers });
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.on('error', () => undefined);
  });
}

/**
 * Posts `total` signed deliveries to `relay` from `concurrency` senders and kills it (-9) once
 * `killAfter` were answered 200. Resolves once it is gone, with what it acknowledged (seq → body).
 */
export async function loadThenKill(
  relay: RelayProcess,
  o: { secret: string; total: number; concurrency: number; killAfter: number; body: (i: number) => string },
): Promise<Map<number, string>> {
  const acked = new Map<number, string>();
  const agent = new Agent({ connections: o.concurrency });
  let sent = 0;
  let killed = false;
  const worker = async () => {
    while (sent < o.total) {
      const body = o.body(sent++);
      try {
        const res = await request(`${relay.url}/hooks/default`, { method: 'POST', body, headers: signed(o.secret, body), dispatcher: agent });
        const text = await res.body.text();
        if (res.statusCode === 200) acked.set((JSON.parse(text) as { seq: number }).seq, body);
      } catch {
        // killed mid-request: not acknowledged, so nothing was promised
      }
      if (!killed && acked.size >= o.killAfter) {
        killed = true;
        relay.child.kill('SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  await relay.exited;
  await agent.close();
  return acked;
}

/** `p`, or a rejection with `explain()` after `ms` (under mocha's timeout, so a wait that hangs says what it saw). */
export function within<T>(p: Promise<T>, ms: number, explain: () => string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(explain())), ms)));
  return Promise.race([p.finally(() => clearTimeout(timer)), late]);
}
