// The team relay's fail-over under load (issue 21), as parts a script or a test puts together:
// apps that record when each delivery first arrived and how often, and a burst of senders that
// post new signed deliveries without pause, as the service does, and note when each was answered
// 200. Everything is on loopback.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { Agent, request } from 'undici';
import { sign } from '../../../src/core/signing';

/** An app that answers 200 at once and records, per delivery id, its first arrival and its count. */
export interface CountingApp {
  url: string;
  first: Map<string, number>;
  count: Map<string, number>;
  /** Resolves once `pred` holds (checked on every arrival) or `ms` passed; true when it held. */
  until(pred: () => boolean, ms: number): Promise<boolean>;
  close(): Promise<void>;
}

export async function countingApp(): Promise<CountingApp> {
  const waiters = new Set<() => void>();
  const first = new Map<string, number>();
  const count = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200).end('ok');
      let id: string | undefined;
      try {
        id = (JSON.parse(Buffer.concat(chunks).toString()) as { id?: string }).id;
      } catch {
        return;
      }
      if (id === undefined) return;
      if (!first.has(id)) first.set(id, Date.now());
      count.set(id, (count.get(id) ?? 0) + 1);
      for (const w of waiters) w();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/app`,
    first,
    count,
    until: (pred, ms) =>
      new Promise<boolean>((resolve) => {
        const check = () => {
          if (!pred()) return;
          done(true);
        };
        const done = (v: boolean) => {
          waiters.delete(check);
          clearTimeout(t);
          resolve(v);
        };
        const t = setTimeout(() => done(pred()), ms);
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

export interface BurstOptions {
  secret: string;
  senders: number;
  /** Where each post goes: called per post with its number (alternate, skip dead relays…). */
  target: (i: number) => string | undefined;
  /** A post's deadline (default 10 s): longer is a failure, as the service's time-out. */
  timeoutMs?: number;
  /** Stop after this many posts (default: when stopped). */
  limit?: number;
  /** Prefix of the delivery ids (default "d"). */
  prefix?: string;
}

export interface Burst {
  /** Delivery id → when it was answered 200. */
  acked: Map<string, number>;
  /** Delivery id → the seq its 200 named (where the relay said it was stored). */
  ackedSeq: Map<string, number>;
  /** Posts answered otherwise, by "503", "timeout", "refused", … */
  failed: Map<string, number>;
  /** Posts made (including failed ones). */
  readonly sent: number;
  /** The longest time one post took to be answered (any status), in ms. */
  readonly slowest: number;
  /** Per post answered: [when, status or failure kind, the relay it went to]. */
  log: [number, string, string?][];
  /** The first error message of each failure kind. */
  messages: Map<string, string>;
  /** 503s that carried no Retry-After. */
  readonly without503RetryAfter: number;
  /** Resolves once `n` posts have been answered 200 (more than now). */
  whenAcked(n: number): Promise<void>;
  /** Resolves once `n` posts have been answered (any way), or the burst was stopped. */
  whenSent(n: number): Promise<void>;
  /** Stops the senders and waits for the posts in flight. */
  stop(): Promise<void>;
}

/** Posts `{"event":"push","id":"<prefix><i>"}`, signed, from `senders` loops without pause. */
export function burst(o: BurstOptions): Burst {
  const agent = new Agent({ connections: o.senders, keepAliveTimeout: 10_000 });
  const acked = new Map<string, number>();
  const ackedSeq = new Map<string, number>();
  const failed = new Map<string, number>();
  const ackWaiters: { n: number; resolve: () => void }[] = [];
  const sentWaiters: { n: number; resolve: () => void }[] = [];
  let sent = 0;
  let answered = 0;
  let stopped = false;
  let slowest = 0;
  let without = 0;
  const log: [number, string, string?][] = [];
  const messages = new Map<string, string>();
  const fail = (why: string, message?: string, base?: string) => {
    failed.set(why, (failed.get(why) ?? 0) + 1);
    log.push([Date.now(), why, base]);
    if (message !== undefined && !messages.has(why)) messages.set(why, message);
  };
  const one = async (): Promise<void> => {
    const i = sent++;
    const base = o.target(i);
    if (!base) return fail('no relay');
    const id = `${o.prefix ?? 'd'}${i}`;
    const body = JSON.stringify({ event: 'push', id });
    const started = Date.now();
    try {
      const res = await request(`${base}/hooks/default`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'x-service-signature': sign(o.secret, body) },
        dispatcher: agent,
        signal: AbortSignal.timeout(o.timeoutMs ?? 10_000),
      });
      const text = await res.body.text();
      if (res.statusCode === 200) {
        acked.set(id, Date.now());
        const seq = (JSON.parse(text) as { seq?: unknown }).seq;
        if (typeof seq === 'number') ackedSeq.set(id, seq);
        log.push([Date.now(), '200', base]);
        for (const w of ackWaiters.filter((x) => acked.size >= x.n)) {
          ackWaiters.splice(ackWaiters.indexOf(w), 1);
          w.resolve();
        }
      } else {
        fail(String(res.statusCode), text.slice(0, 300), base);
        if (res.statusCode === 503 && res.headers['retry-after'] === undefined) without++;
      }
    } catch (err) {
      const name = (err as Error).name;
      fail(
        name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : (err as { code?: string }).code === 'ECONNREFUSED' ? 'refused' : 'cut',
        (err as Error).message,
        base,
      );
    } finally {
      slowest = Math.max(slowest, Date.now() - started);
      answered++;
      for (const w of sentWaiters.filter((x) => answered >= x.n)) {
        sentWaiters.splice(sentWaiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  const loops = Array.from({ length: o.senders }, async () => {
    while (!stopped && sent < (o.limit ?? Infinity)) await one();
  });
  const release = () => {
    for (const w of [...ackWaiters.splice(0), ...sentWaiters.splice(0)]) w.resolve();
  };
  void Promise.all(loops).then(release);
  return {
    acked,
    ackedSeq,
    failed,
    log,
    messages,
    get sent() {
      return sent;
    },
    get slowest() {
      return slowest;
    },
    get without503RetryAfter() {
      return without;
    },
    whenSent: (n) =>
      answered >= n || stopped || answered >= (o.limit ?? Infinity) ? Promise.resolve() : new Promise((resolve) => sentWaiters.push({ n, resolve })),
    whenAcked: (n) => (acked.size >= n ? Promise.resolve() : new Promise((resolve) => ackWaiters.push({ n, resolve }))),
    async stop() {
      stopped = true;
      await Promise.all(loops);
      release();
      await agent.close();
    },
  };
}

/** What reached one app of what was acknowledged: missing ids, duplicates, the longest 200→app time. */
export function tally(acked: Map<string, number>, app: CountingApp): { arrived: number; missing: string[]; twice: number; longestMs: number } {
  const missing: string[] = [];
  let longestMs = 0;
  for (const [id, at] of acked) {
    const got = app.first.get(id);
    if (got === undefined) missing.push(id);
    else longestMs = Math.max(longestMs, got - at);
  }
  let twice = 0;
  for (const [id, n] of app.count) if (n > 1 && acked.has(id)) twice++;
  return { arrived: acked.size - missing.length, missing, twice, longestMs };
}

/** The longest stretch in which no post was answered 200, from `from` on (ms), and when it began. */
export function longestGap(log: [number, string, string?][], from: number, to: number): { ms: number; at: number } {
  let last = from;
  let best = { ms: 0, at: from };
  for (const [t, what] of log) {
    if (t < from || what !== '200') continue;
    if (t - last > best.ms) best = { ms: t - last, at: last };
    last = t;
  }
  if (to - last > best.ms) best = { ms: to - last, at: last };
  return best;
}
