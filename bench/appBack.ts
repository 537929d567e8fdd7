// Benchmark part of bench:relay-drain (issue 43): the developer's everyday loop. The app's port is
// closed (it restarts on a code change), N deliveries are answered 200 meanwhile, then the app
// listens again on the same port; timed from that moment to the last held delivery's arrival, for
// three forwarders in one run:
//   relay --forward          the relay's own forwarding, running throughout
//   relay --forward, kill -9 the relay killed while the app is down and started again
//   forward                  `service-hooks forward` from the same relay (its probe is the baseline)
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { RELAY_READY } from './relayChild';
import { childOutput } from '../test/support/childOutput';
import { freePort } from '../test/support/freePort';

interface Proc {
  child: ChildProcess;
  /** Resolves once its output (from now on) matches `re`. */
  saw(re: RegExp): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

function run(cli: string, args: string[]): Proc {
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = childOutput(child, args[0]);
  const exited = once(child, 'exit');
  return {
    child,
    saw: (re) => output.saw(re, { from: output.out().length }),
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

async function relay(cli: string, data: string, forward: string[]): Promise<{ p: Proc; url: string }> {
  const p = run(cli, ['relay', '--port', '0', '--ready', 'json', '--data', data, ...forward.flatMap((f) => ['--forward', f])]);
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    p.child.stdout!.on('data', (c: Buffer) => {
      const n = RELAY_READY((out += c.toString()));
      if (n !== undefined) resolve(n);
    });
    p.child.once('exit', (code) => reject(new Error(`relay exited with ${code}`)));
  });
  return { p, url: `http://127.0.0.1:${port}` };
}

/** Listens on `port` and resolves with the ms from listening to the n-th distinct delivery. */
async function appBack(port: number, n: number): Promise<number> {
  const seen = new Set<string>();
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  const app: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(204).end();
      seen.add(String(req.headers['x-service-delivery']));
      if (seen.size === n) done();
    });
  });
  app.listen(port, '127.0.0.1');
  await once(app, 'listening');
  const upAt = performance.now();
  await all;
  const ms = performance.now() - upAt;
  app.closeAllConnections();
  await new Promise<void>((r) => app.close(() => r()));
  return ms;
}

async function send(url: string, n: number, label: string): Promise<void> {
  for (let k = 0; k < n; k++) {
    const res = await request(`${url}/hooks/default`, { method: 'POST', headers: { 'x-service-delivery': `${label}-${k}` }, body: `{"k":${k}}` });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
  }
}

const UNREACHABLE = /is unreachable/;

async function relayRound(cli: string, n: number, kill: boolean): Promise<number> {
  const port = await freePort();
  const data = mkdtempSync(join(tmpdir(), 'sh-bench-back-'));
  const target = [`http://127.0.0.1:${port}/hook`];
  let r = await relay(cli, data, target);
  const down = r.p.saw(UNREACHABLE);
  await send(r.url, n, kill ? 'k' : 'l');
  await down;
  if (kill) {
    await r.p.stop('SIGKILL');
    r = await relay(cli, data, target);
    await r.p.saw(UNREACHABLE);
  }
  const ms = await appBack(port, n);
  await r.p.stop();
  return ms;
}

async function forwardRound(cli: string, n: number): Promise<number> {
  const port = await freePort();
  const data = mkdtempSync(join(tmpdir(), 'sh-bench-back-'));
  const r = await relay(cli, data, []);
  const state = join(mkdtempSync(join(tmpdir(), 'sh-bench-back-state-')), 's.json');
  const f = run(cli, ['forward', '--relay', r.url, '--data', data, '--to', `http://127.0.0.1:${port}/hook`, '--state', state]);
  await f.saw(/connected/);
  const down = f.saw(UNREACHABLE);
  await send(r.url, n, 'f');
  await down;
  const ms = await appBack(port, n);
  await f.stop();
  await r.p.stop();
  return ms;
}

export interface AppBackFigures {
  held: number;
  rounds: number;
  /** Median ms from the app's return to the last held delivery. */
  relayLiveMs: number;
  relayRestartMs: number;
  forwardMs: number;
}

/** `rounds` rounds of the three paths, interleaved; medians. */
export async function measureAppBack(cli: string, n: number, rounds: number): Promise<AppBackFigures> {
  const live: number[] = [];
  const restart: number[] = [];
  const fwd: number[] = [];
  for (let i = 0; i < rounds; i++) {
    live.push(await relayRound(cli, n, false));
    restart.push(await relayRound(cli, n, true));
    fwd.push(await forwardRound(cli, n));
    console.log(
      `app back, round ${i + 1}: relay --forward ${live.at(-1)!.toFixed(0)} ms, after kill -9 ${restart.at(-1)!.toFixed(0)} ms, forward ${fwd.at(-1)!.toFixed(0)} ms`,
    );
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return { held: n, rounds, relayLiveMs: median(live), relayRestartMs: median(restart), forwardMs: median(fwd) };
}
