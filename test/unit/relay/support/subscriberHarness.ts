// The relay's subscriber half for tests: a real journal store, a SubscriberHub and an HTTP server
// that hands /ws upgrades to it (no ingress, no API), with one admin token.
import { once } from 'node:events';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import WebSocket from 'ws';
import { SubscriberHub, type SubscriberOptions } from '../../../../relay/server/subscribers/subscribers';
import { DeliveryStore, type RelayStore } from '../../../../relay/server/store/store';
import { tempDir } from './helpers';

export const TOKEN = 'limits-token';

export interface Harness {
  /** The store's data folder (its journal segments). */
  dir: string;
  store: DeliveryStore;
  hub: SubscriberHub;
  url: string;
  /** The request URL of every upgrade, in order. */
  upgrades: string[];
  close(): Promise<void>;
}

/** A store, a hub and an HTTP server that hands /ws upgrades to the hub: the relay's subscriber half. */
export async function harness(limits: Partial<SubscriberOptions> = {}, o: { wholeBodies?: boolean } = {}): Promise<Harness> {
  const dir = tempDir();
  const store = await DeliveryStore.open(dir);
  const authenticate = (given: string | undefined) => (given === TOKEN ? ({ kind: 'admin' } as const) : undefined);
  // A store that reads bodies only whole, as the JetStream store does (no openBody).
  const seen: RelayStore = o.wholeBodies
    ? new Proxy(store, {
        get: (t, k) =>
          k === 'openBody'
            ? undefined
            : typeof t[k as keyof DeliveryStore] === 'function'
              ? (t[k as keyof DeliveryStore] as (...a: unknown[]) => unknown).bind(t)
              : t[k as keyof DeliveryStore],
      })
    : store;
  const hub = new SubscriberHub(seen, { authenticate, boundHost: '127.0.0.1', allowedHosts: [], allowedOrigins: [], ...limits });
  const server: Server = createServer((_req, res) => res.writeHead(404).end());
  const upgrades: string[] = [];
  server.on('upgrade', (req, socket, head) => {
    upgrades.push(req.url!);
    hub.upgrade(req, socket, head, new URL(req.url!, 'http://relay.invalid'));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `ws://127.0.0.1:${(server.address() as { port: number }).port}/ws`;
  return {
    dir,
    store,
    hub,
    url,
    upgrades,
    close: async () => {
      hub.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await store.close();
    },
  };
}

export function add(store: DeliveryStore, channel: string, body: Buffer): Promise<unknown> {
  return store.add({ channel, verification: 'unverified', headers: [['content-type', 'application/octet-stream']], targets: [] }, body);
}

/** A real ws client (admin token) that reads one chunk at a time, so the relay's writes keep waiting for it to drain. */
export function slowReader(url: string): WebSocket {
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${TOKEN}` }, perMessageDeflate: false, maxPayload: 1 << 30 });
  ws.once('open', () => {
    const socket = (ws as unknown as { _socket: Socket })._socket;
    socket.on('data', () => {
      socket.pause();
      setImmediate(() => socket.resume());
    });
  });
  return ws;
}

/**
 * Seq 1: a body of `size` bytes whose record has one body byte flipped at `flipAt` (its checksum
 * no longer matches); seq 2: `{"after":1}`.
 */
export async function addDamagedLarge(h: Harness, size: number, flipAt: number): Promise<void> {
  const mark = 'damaged-large-body ';
  await add(h.store, 'default', Buffer.alloc(size, mark));
  await add(h.store, 'default', Buffer.from('{"after":1}'));
  const seg = join(
    h.dir,
    readdirSync(h.dir).find((f) => /^journal-\d+\.log$/.test(f))!,
  );
  const bytes = readFileSync(seg);
  bytes[bytes.indexOf(mark) + flipAt]! ^= 0x01;
  writeFileSync(seg, bytes);
}
