// @ts-check
// The bare-proxy baseline of `npm run bench:relay`: a node:http server that answers 200 once it
// has the body and forwards the body and headers (minus hop-by-hop) to one target with undici,
// keep-alive. No signature check, no journal, no retries: what any relay pays for HTTP alone.
// Usage: node bench/bare-proxy.mjs TARGET_URL  (prints "bare proxy listening on http://127.0.0.1:PORT")
import { createServer } from 'node:http';
import { Agent, request } from 'undici';

const target = process.argv[2];
if (!target) throw new Error('usage: bare-proxy.mjs TARGET_URL');
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host', 'upgrade', 'te', 'trailer', 'proxy-connection', 'expect']);
const agent = new Agent({ connections: 64, keepAliveTimeout: 10_000 });

const server = createServer((req, res) => {
  /** @type {Buffer[]} */
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '11' }).end('{"ok":true}');
    /** @type {string[]} */
    const headers = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      if (!HOP.has(req.rawHeaders[i].toLowerCase())) headers.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
    }
    request(target, { method: 'POST', headers, body, dispatcher: agent }).then(
      (r) => r.body.dump(),
      (err) => process.stderr.write(`bare proxy: ${err.message}\n`),
    );
  });
});
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  const addr = /** @type {import('node:net').AddressInfo} */ (server.address());
  process.stdout.write(`bare proxy listening on http://127.0.0.1:${addr.port}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void agent.close();
});
