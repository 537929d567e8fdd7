// @ts-check
// A free TCP port on 127.0.0.1, asked of the OS (listen on port 0, then close), for a process that
// must be told its port up front (code-server, nginx, a NATS route, a relay a bench restarts on the
// same port). The one home: npm start and the e2e flows import it here, the TypeScript tests and
// benches through test/support/freePort.ts. Tests that start a server themselves listen on port 0.
import { createServer } from 'node:net';

/** @returns {Promise<number>} */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (s.address());
      s.close(() => resolvePort(port));
    });
  });
}
