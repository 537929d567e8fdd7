#!/usr/bin/env node
// The demo's sample app: the kind of webhook receiver a user writes. It checks X-Service-Signature
// (`sha256=<hex HMAC-SHA-256 of the raw body>`) on the raw bytes, in constant time, before parsing,
// and logs one line per delivery. No dependencies, so it can be copied as a starting point.
//
//   node scripts/demo/receiver.mjs --port 3000 --secret demo-secret-0123456789abcdef [--path /webhook]
//
// Answers 204 when the signature is valid, 401 when it is missing or wrong, 404 on other paths,
// 413 over 25 MB.
// Prints `receiver listening on http://127.0.0.1:PORT/webhook` once it listens (port 0 = any free).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

const MAX_BODY = 25 * 1024 * 1024; // the service's payload cap; larger bodies get 413

/** true when `header` is `sha256=<hex>` of HMAC-SHA-256(secret, raw) for one of `secrets`. */
export function verifySignature(raw, header, secrets) {
  if (typeof header !== 'string' || !/^sha256=[0-9a-f]{64}$/.test(header.trim())) return false;
  const given = Buffer.from(header.trim().slice(7), 'hex');
  let ok = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(raw).digest();
    if (timingSafeEqual(expected, given)) ok = true; // no early exit: same work for every secret
  }
  return ok;
}

export function startReceiver({ port = 0, host = '127.0.0.1', secrets, path = '/webhook', log = (line) => process.stdout.write(line + '\n') }) {
  if (!secrets?.length) throw new Error('receiver: at least one --secret is required');
  const deliveries = [];
  const server = createServer((req, res) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY) {
        res.writeHead(413, { connection: 'close' }).end();
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.method !== 'POST' || url.pathname !== path) {
        res.writeHead(404).end();
        return;
      }
      const raw = Buffer.concat(chunks); // the exact bytes: verify before any parsing
      const event = req.headers['x-service-event'] ?? '?';
      const id = req.headers['x-service-delivery'] ?? '?';
      const valid = verifySignature(raw, req.headers['x-service-signature'], secrets);
      deliveries.push({ event, id, valid, size: raw.length });
      log(`${new Date().toISOString()} ${valid ? 'verified  ' : 'REJECTED  '} event=${event} delivery=${id} ${raw.length} bytes`);
      res.writeHead(valid ? 204 : 401).end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const url = `http://${host}:${server.address().port}${path}`;
      resolve({ url, port: server.address().port, deliveries, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const secrets = args.flatMap((a, i) => (a === '--secret' ? [args[i + 1]] : [])).filter(Boolean);
  if (!secrets.length) secrets.push(process.env.RECEIVER_SECRET ?? '');
  if (!secrets[0]) {
    process.stderr.write('usage: receiver.mjs --port N --secret S [--secret S2] [--path /webhook]\n');
    process.exit(2);
  }
  const port = Number(opt('--port') ?? 3000);
  const path = opt('--path') ?? '/webhook';
  if (!Number.isInteger(port) || port < 0 || port > 65535 || !path.startsWith('/')) {
    process.stderr.write('receiver.mjs: --port must be 0-65535 and --path must start with /\n');
    process.exit(2);
  }
  const r = await startReceiver({ port, secrets, path }).catch((err) => {
    process.stderr.write(`receiver.mjs: cannot listen on port ${port}: ${err.message}\n`);
    process.exit(1);
  });
  process.stdout.write(`receiver listening on ${r.url}\n`);
  const stop = () => r.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
