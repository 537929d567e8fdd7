// HTTPS for the relay: the certificate and key are read at start, and a key that does not belong
// to the certificate is refused then (not at the first handshake). useTls() swaps them on a
// running server (the relay command does on SIGHUP): new handshakes get the new pair, open
// connections keep theirs. The same port serves the REST API, the ingress and the WebSocket
// (wss); plain HTTP to it fails the TLS handshake.
import { readFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server, type ServerOptions as HttpServerOptions } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createSecureContext } from 'node:tls';

export interface TlsFiles {
  cert: string;
  key: string;
}

export interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
}

/** Thrown for an unreadable or mismatched certificate/key: the CLI exits 2 with this message. */
export class TlsConfigError extends Error {
  override name = 'TlsConfigError';
}

function readPem(file: string, flag: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new TlsConfigError(`${flag} ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
}

export function loadTls(files: TlsFiles): TlsMaterial {
  const cert = readPem(files.cert, '--tls-cert');
  const key = readPem(files.key, '--tls-key');
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const hint = e.code === 'ERR_OSSL_X509_KEY_VALUES_MISMATCH' ? 'the key does not belong to the certificate' : `not a PEM certificate and key (${e.message})`;
    throw new TlsConfigError(`--tls-cert ${files.cert} / --tls-key ${files.key}: ${hint}`);
  }
  return { cert, key };
}

/** An HTTP server, or with `tls` an HTTPS one (the same API: upgrade, closeAllConnections, …). */
export function createHttpServer(options: HttpServerOptions, tls: TlsMaterial | undefined, handler: RequestListener): Server {
  return tls ? createHttpsServer({ ...options, cert: tls.cert, key: tls.key }, handler) : createServer(options, handler);
}

/** Serves `tls` to new handshakes from now on; false if the server was not started with TLS. */
export function useTls(server: Server, tls: TlsMaterial): boolean {
  if (!('setSecureContext' in server)) return false;
  (server as unknown as HttpsServer).setSecureContext({ cert: tls.cert, key: tls.key });
  return true;
}
