// Is anything there? One connect, closed at once: TCP (is anything listening at a URL's host and
// port: how a paused forwarder notices that the app is back without waiting out a backoff) or TLS
// (does a port speak TLS: asked when a plain http:// request was cut off without an answer, so the
// CLI can say "use https://" instead of undici's "other side closed"; only a ClientHello goes out
// and any certificate is taken: the question is the protocol, not whom to trust).
import { connect, isIP } from 'node:net';
import { connect as connectTls } from 'node:tls';

/** True once a TCP connection (with `tls`, a TLS handshake) to host:port completes; false on an error, a close or after `timeoutMs`. */
export function probe(host: string, port: number, o: { tls?: boolean; timeoutMs?: number } = {}): Promise<boolean> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve) => {
    const sock = o.tls
      ? connectTls({ host: bare, port, rejectUnauthorized: false, ...(isIP(bare) ? {} : { servername: bare }) })
      : connect({ host: bare, port });
    const done = (yes: boolean) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(yes);
    };
    const timer = setTimeout(() => done(false), o.timeoutMs ?? 1000);
    sock.once(o.tls ? 'secureConnect' : 'connect', () => done(true));
    sock.once('error', () => done(false));
    sock.once('close', () => done(false));
  });
}

/** Resolves true once a TCP connection to `url`'s host:port opens, false on an error or after `timeoutMs`. */
export function probePort(url: string, timeoutMs = 1000): Promise<boolean> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return Promise.resolve(false);
  }
  return probe(u.hostname, Number(u.port) || (u.protocol === 'https:' ? 443 : 80), { timeoutMs });
}

/** For an http:// URL whose request was cut off: the https:// sentence when its port speaks TLS, else undefined. */
export async function tlsHint(url: URL): Promise<string | undefined> {
  if (url.protocol !== 'http:') return undefined;
  if (!(await probe(url.hostname, Number(url.port || 80), { tls: true, timeoutMs: 3000 }))) return undefined;
  const https = new URL(url.href);
  https.protocol = 'https:';
  return `this port speaks TLS: use ${https.href.replace(/\/\/[^@/]*@/, '//***@')}`;
}

/**
 * Probes `url`'s host and port every `everyMs` and calls `back` once it answers after it did not
 * (`down`: it did not already). Returns the stop. How a reconnect notices that the relay is back
 * without waiting out a backoff that grew while it was down (./subscribe.ts).
 */
export function watchPort(url: string, o: { everyMs: number; down: boolean; back: () => void }): () => void {
  const u = new URL(url);
  const port = Number(u.port) || (u.protocol === 'wss:' || u.protocol === 'https:' ? 443 : 80);
  let down = o.down;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const round = async (): Promise<void> => {
    const started = Date.now();
    const up = await probe(u.hostname, port, { timeoutMs: 1000 });
    if (stopped) return;
    if (!up) down = true;
    else if (down) return o.back();
    timer = setTimeout(() => void round(), Math.max(0, o.everyMs - (Date.now() - started)));
  };
  void round();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
