// A deliberately misbehaving HTTP peer for the service client tests: each test sets how it
// answers (429 with Retry-After, 503 then 200, a hang, garbage, an echoed token…) and reads
// back what it received. Real node:http on 127.0.0.1 port 0.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse, type IncomingHttpHeaders } from 'node:http';

export interface PeerRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type PeerHandler = (req: PeerRequest, res: ServerResponse, n: number) => void;

export interface Peer {
  url: string;
  requests: PeerRequest[];
  handle: PeerHandler;
  close(): Promise<void>;
}

export async function startPeer(): Promise<Peer> {
  const peer: Peer = {
    url: '',
    requests: [],
    handle: (_req, res) => res.writeHead(200).end(),
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: PeerRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
      peer.requests.push(r);
      peer.handle(r, res, peer.requests.length);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  peer.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return peer;
}

/** Answers `status` with a JSON body (or raw text when `body` is a string). */
export function reply(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(text);
}
