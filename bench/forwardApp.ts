// The app a scale bench's relay forwards to (bench:million, bench:ten-million): answers 503 while
// down (the relay keeps those deliveries pending and retries them), 200 once up, and counts the
// forward attempts it saw and the distinct deliveries it took.
import { createServer, type Server } from 'node:http';

export class ForwardApp {
  /** Whether it answers 200 (else 503). */
  up = false;
  /** Forward attempts answered so far, and when the last one came. */
  attempts = 0;
  lastAttemptAt = 0;
  /** The distinct X-Service-Delivery ids it answered 200. */
  readonly accepted = new Set<string>();
  private waiter: { want: number; resolve: () => void } | undefined;
  private readonly server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      this.attempts++;
      this.lastAttemptAt = performance.now();
      if (this.up) this.accepted.add(String(req.headers['x-service-delivery']));
      res.writeHead(this.up ? 200 : 503, { 'content-length': '2' }).end('ok');
      if (this.waiter && this.accepted.size >= this.waiter.want) this.waiter.resolve();
    });
  });

  /** Listens on a free loopback port; resolves with the URL the relay forwards to. */
  async listen(): Promise<string> {
    const port = await new Promise<number>((r) => this.server.listen(0, '127.0.0.1', () => r((this.server.address() as { port: number }).port)));
    return `http://127.0.0.1:${port}/webhook`;
  }

  /** Resolves once `want` distinct deliveries were answered 200. */
  untilAccepted(want: number): Promise<void> {
    return new Promise<void>((r) => (this.accepted.size >= want ? r() : (this.waiter = { want, resolve: r })));
  }

  /** Resolves once no forward attempt came for `quietMs`; says how many came meanwhile. */
  async settled(quietMs = 500): Promise<{ attempts: number; seconds: number }> {
    const [t0, n0] = [performance.now(), this.attempts];
    while (performance.now() - Math.max(this.lastAttemptAt, t0) < quietMs) await new Promise((r) => setTimeout(r, 50));
    return { attempts: this.attempts - n0, seconds: (performance.now() - t0) / 1000 };
  }

  close(): void {
    this.server.close();
    this.server.closeAllConnections();
  }
}
