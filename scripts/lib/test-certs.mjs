// @ts-check
// A test CA and a server certificate it signed for 127.0.0.1 and localhost, made with openssl (on
// Debian) in `dir`, valid for a day. The in-editor suite's TLS relay serves the server certificate;
// the extension host (and the emulator running in it) trusts the CA through NODE_EXTRA_CA_CERTS.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/**
 * @param {string} dir
 * @returns {{ dir: string, caCert: string, serverCert: string, serverKey: string }}
 */
export function makeTestCerts(dir) {
  mkdirSync(dir, { recursive: true });
  /** @param {string[]} args */
  const openssl = (args) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  openssl(['req', '-x509', ...EC, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=service-hooks integration CA']);
  openssl(['req', ...EC, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '1', '-extfile', 'san.ext']);
  return { dir, caCert: join(dir, 'ca.crt'), serverCert: join(dir, 'server.crt'), serverKey: join(dir, 'server.key') };
}
