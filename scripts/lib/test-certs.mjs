// @ts-check
// Test certificates made with openssl (on Debian) in `dir`: a CA, a server certificate it signed
// for 127.0.0.1 and localhost (subjectAltName), valid for a day, and a key that belongs to no
// certificate. Clients trust the CA only when told to (`ca` option, or NODE_EXTRA_CA_CERTS: the
// in-editor suite's extension host and the emulator in it). The one maker: the unit tests call it
// through test/unit/relay/support/certs.ts.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/**
 * @param {string} dir
 * @returns {{ dir: string, caCert: string, serverCert: string, serverKey: string, otherKey: string }}
 */
export function makeTestCerts(dir) {
  mkdirSync(dir, { recursive: true });
  /** @param {string[]} args */
  const openssl = (args) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  openssl(['req', '-x509', ...EC, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=service-hooks test CA']);
  openssl(['req', ...EC, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  openssl([
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.crt',
    '-days',
    '1',
    '-extfile',
    'san.ext',
  ]);
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-out', 'other.key']);
  return { dir, caCert: join(dir, 'ca.crt'), serverCert: join(dir, 'server.crt'), serverKey: join(dir, 'server.key'), otherKey: join(dir, 'other.key') };
}
