// Types of test-certs.mjs for the TypeScript tests that import it.
export function makeTestCerts(dir: string): { dir: string; caCert: string; serverCert: string; serverKey: string; otherKey: string };
