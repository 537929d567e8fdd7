// Whether a port speaks TLS: asked when a plain http:// request to it was cut off without an
// answer (a TLS server drops a request that is not a TLS handshake), so the CLI can say "use
// https://" instead of undici's "other side closed". Only a ClientHello goes out, and any
// certificate is taken: the question is the protocol, not whom to trust.
import { isIP } from 'node:net';
import { connect } from 'node:tls';

/** True when a TLS handshake with host:port completes within `timeoutMs`. */
export function speaksTls(host: string, port: number, timeoutMs = 3000): Promise<boolean> {
  const bare = host.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const sock = connect({ host: bare, port, rejectUnauthorized: false, ...(isIP(bare) ? {} : { servername: bare }) });
    const done = (yes: boolean) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(yes);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    sock.once('secureConnect', () => done(true));
    sock.once('error', () => done(false));
    sock.once('close', () => done(false));
  });
}

/** For an http:// URL whose request was cut off: the https:// sentence when its port speaks TLS, else undefined. */
export async function tlsHint(url: URL): Promise<string | undefined> {
  if (url.protocol !== 'http:') return undefined;
  if (!(await speaksTls(url.hostname, Number(url.port || 80)))) return undefined;
  const https = new URL(url.href);
  https.protocol = 'https:';
  return `this port speaks TLS: use ${https.href.replace(/\/\/[^@/]*@/, '//***@')}`;
}
