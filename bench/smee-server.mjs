// The peer of bench/public-path.ts: a minimal smee.io, so that smee-client (npm, the client
// developers run with `smee -u … -t …`) can be measured beside the public path on loopback.
// smee.io's own server (github.com/probot/smee.io, lib/server.js) is not on npm; this keeps its
// wire: POST /<channel> with a JSON body is answered 200 at once and sent to every
// `GET /<channel>` with `Accept: text/event-stream` as one SSE message whose data is
// `{ ...request headers, body: <the parsed JSON>, query, timestamp }`. Like smee.io without
// Redis: nothing is stored, a message for a channel nobody listens to is gone, and the body is
// parsed and serialised again (smee-client posts JSON.stringify(body): not the bytes received,
// so a signature over them need not match). Not durable, not authenticated: a yardstick only.
//   node bench/smee-server.mjs <port>   (0: any free port; prints "smee server listening on http://127.0.0.1:<port>")
import { createServer } from 'node:http';

const listeners = new Map(); // channel → Set of SSE responses

const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  const channel = url.pathname.slice(1);
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(channel)) return res.writeHead(404).end();
  if (req.method === 'GET' && req.headers.accept === 'text/event-stream') {
    req.socket.setTimeout(0);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.write('event: ready\ndata: {}\n\n');
    let set = listeners.get(channel);
    if (!set) listeners.set(channel, (set = new Set()));
    set.add(res);
    req.on('close', () => set.delete(res));
    return;
  }
  if (req.method !== 'POST') return res.writeHead(405).end();
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString());
    } catch {
      return res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"body is not JSON"}');
    }
    const message = `data: ${JSON.stringify({ ...req.headers, body, query: Object.fromEntries(url.searchParams), timestamp: Date.now() })}\n\n`;
    for (const l of listeners.get(channel) ?? []) l.write(message);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});

server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  console.log(`smee server listening on http://127.0.0.1:${server.address().port}`);
});
