// eslint-disable-next-line @typescript-eslint/ban-ts-comment -- a copy of the shared bench, type-checked where it was written
// @ts-nocheck
// The durable-proxy baseline of `npm run bench:relay` (issue 24). Copied from the team's shared
// bench folder (/work/shared/bench/durable-proxy.mjs, written for this project; no separate
// licence: the project's own). Changed from that copy only where the bench needs it, each marked
// "bench:": it forwards X-Service-Event and X-Service-Delivery too (the bench's app matches each
// arrival to its send by the delivery id, and the relay forwards every header), it prints the
// port it listens on (port 0: a free one), and it exits on SIGTERM.
//
// The floor for a durable relay: the least code that gives the relay's guarantees. node:http ingress,
// HMAC-SHA256 check of X-Service-Signature (constant time), the body appended to one file with group
// commit (every body that arrives while an fdatasync runs goes into the next one), 200 only after its
// fdatasync, then forwarded with undici. No index, no retries, no API: what any durable relay must pay.
// usage: node durable-proxy.mjs <port> <targetUrl> <secret> <file>
import http from 'node:http';
import fs from 'node:fs';
import crypto from 'node:crypto';
import { Pool } from 'undici';

const [port, target, secret, file] = process.argv.slice(2);
const u = new URL(target);
const pool = new Pool(u.origin, { connections: 64 });
const key = crypto.createSecretKey(Buffer.from(secret));
const fd = fs.openSync(file, 'a');
let queue = [];
let syncing = false;
function flush() {
  if (syncing || queue.length === 0) return;
  syncing = true;
  const batch = queue;
  queue = [];
  const bufs = [];
  for (const b of batch) {
    const h = Buffer.alloc(4);
    h.writeUInt32LE(b.body.length);
    bufs.push(h, b.body);
  }
  fs.writev(fd, bufs, (err) => {
    if (err) {
      for (const b of batch) b.done(err);
      syncing = false;
      flush();
      return;
    }
    fs.fdatasync(fd, (e2) => {
      for (const b of batch) b.done(e2);
      syncing = false;
      flush();
    });
  });
}
const server = http
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const want = Buffer.from('sha256=' + crypto.createHmac('sha256', key).update(body).digest('hex'));
      const got = Buffer.from(String(req.headers['x-service-signature'] ?? ''));
      if (got.length !== want.length || !crypto.timingSafeEqual(got, want)) {
        res.writeHead(401).end();
        return;
      }
      queue.push({
        body,
        done: (err) => {
          if (err) {
            res.writeHead(500).end();
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
          pool
            .request({
              path: u.pathname,
              method: 'POST',
              headers: {
                'content-type': req.headers['content-type'] ?? 'application/json',
                'x-service-signature': req.headers['x-service-signature'] ?? '',
                // bench: the ids the app matches arrivals by
                'x-service-event': req.headers['x-service-event'] ?? '',
                'x-service-delivery': req.headers['x-service-delivery'] ?? '',
              },
              body,
            })
            .then(
              (r) => r.body.dump(),
              () => {},
            );
        },
      });
      flush();
    });
  })
  .listen(Number(port), '127.0.0.1', () => process.stdout.write(`durable proxy listening on http://127.0.0.1:${server.address().port}\n`)); // bench: the port
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.close();
}); // bench: a clean stop
