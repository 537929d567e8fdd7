// Hostile forward targets for the forwarding tests: one that answers headers and then trickles
// its body one byte at a time (never finishing), and one that streams an endless body fast.
import { createServer, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';

export interface SlowTarget {
  url: string;
  /** Requests received so far (bodies complete). */
  received: number;
  /** Resolves once `n` requests have been received. */
  waitFor(n: number): Promise<void>;
  close(): Promise<void>;
}

async function start(answer: (res: ServerResponse) => () => void): Promise<SlowTarget> {
  const stops = new Set<() => void>();
  const waiters: { n: number; resolve: () => void }[] = [];
  const t: SlowTarget = {
    url: '',
    received: 0,
    waitFor: (n) => (t.received >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    close: () =>
      new Promise<void>((r) => {
        for (const s of stops) s();
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      t.received++;
      const stop = answer(res);
      stops.add(stop);
      res.on('close', () => {
        stop();
        stops.delete(stop);
      });
      for (const w of waiters.filter((x) => t.received >= x.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/slow`;
  return t;
}

/** Answers 200 headers at once, then one body byte every `everyMs`, never ending the body. */
export function startTrickler(everyMs = 20): Promise<SlowTarget> {
  return start((res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('.');
    const timer = setInterval(() => res.write('.'), everyMs);
    return () => clearInterval(timer);
  });
}

/** Answers 200 and then streams an endless body as fast as the client reads it. */
export function startFirehose(): Promise<SlowTarget> {
  return start((res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let stopped = false;
    const pump = () => {
      while (!stopped && res.write(chunk));
    };
    res.on('drain', pump);
    pump();
    return () => {
      stopped = true;
    };
  });
}
