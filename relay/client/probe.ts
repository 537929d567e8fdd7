// Is anything listening at a URL's host and port? A TCP connect, closed at once: how a paused
// forwarder notices that the app is back without waiting out a backoff.
import { connect } from 'node:net';

/** Resolves true once a TCP connection to `url`'s host:port opens, false on an error or after `timeoutMs`. */
export function probePort(url: string, timeoutMs = 1000): Promise<boolean> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return Promise.resolve(false);
  }
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
  return new Promise((resolve) => {
    const sock = connect({ host, port });
    const done = (up: boolean) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(up);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}
