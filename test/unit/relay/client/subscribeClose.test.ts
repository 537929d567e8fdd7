// relay/client's subscribe(): close() ends in about a second even when the relay never answers the
// close frame. The peer here is a misbehaving network peer, not the relay: a TCP server that
// completes the WebSocket handshake, sends `hello`, then reads and ignores everything. Before, the
// subscription's `closed` waited for ws's 30 s close timeout, and the editor's reconnect (which
// closes the old subscription first) sat at "Connecting…" meanwhile.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { subscribe, type SubscriptionState } from '../../../../relay/client';

/** A peer that upgrades, says hello, and never answers a close frame. */
async function silentPeer(): Promise<{ url: string; sockets: Socket[]; close: () => Promise<void> }> {
  const sockets: Socket[] = [];
  const server = createServer((sock) => {
    sockets.push(sock);
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      sock.off('data', onData);
      sock.on('data', () => undefined); // reads, never answers
      const key = /sec-websocket-key: *(\S+)/i.exec(head)?.[1] ?? '';
      const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
      sock.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
      const hello = Buffer.from(JSON.stringify({ type: 'hello', lastSeq: 0, since: 0 }));
      sock.write(Buffer.concat([Buffer.from([0x82, hello.length]), hello])); // one unmasked binary frame
    };
    sock.on('data', onData);
    sock.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `ws://127.0.0.1:${(server.address() as { port: number }).port}`,
    sockets,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe('subscribe(): close() against a relay that never answers the close frame', function () {
  it("resolves `closed` after the grace, not after ws's 30 s close timeout (mocha's limit here is 20 s)", async () => {
    const peer = await silentPeer();
    try {
      let opened!: () => void;
      const open = new Promise<void>((r) => (opened = r));
      const states: SubscriptionState[] = [];
      const sub = subscribe({
        url: peer.url,
        token: 't',
        onDelivery: () => undefined,
        onState: (s) => (states.push(s), s.state === 'open' && opened()),
      });
      await open;
      sub.close();
      await sub.closed;
      assert.deepEqual(states.at(-1), { state: 'closed', reason: 'closed by client' });
    } finally {
      await peer.close();
    }
  });
});
