// Test certificates for the unit tests: scripts/lib/test-certs.mjs (the one maker, shared with the
// in-editor and UI suites) in a temporary folder removed after the test, plus the CA's bytes.
import { readFileSync } from 'node:fs';
import { makeTestCerts as make } from '../../../../scripts/lib/test-certs.mjs';
import { tempDir } from './helpers';

export interface TestCerts {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  /** A key that does not belong to serverCert. */
  otherKey: string;
  ca: Buffer;
}

export function makeTestCerts(): TestCerts {
  const certs = make(tempDir('sh-relay-certs-'));
  return { ...certs, ca: readFileSync(certs.caCert) };
}
