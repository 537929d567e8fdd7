// Pins issue 36 item 2: subscribe() (used by `forward` and the editor) reconnects as soon as the
// relay's port answers again, not after a backoff that grew while the relay was down. The backoff
// here is a minute, far past mocha's limit, so only the port probe can bring the subscription back
// in time; a real relay is stopped and started again on the same port and data folder. A port that
// answers while its upgrades fail (a proxy's 503) keeps the backoff: the probes do not hammer it.
// A relay back but still loading its journal refuses upgrades with 503 and Retry-After: 1, which
// the subscriber honours instead of its grown backoff.
import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { subscribe, type SubscriptionState } from '../../../../relay/client';
import { startRelay, type RelayServer } from '../../../../relay/server';
import type { DeliveryMessage } from '../../../../src/core/relay/protocol';
import { nodeFs, type JournalFs } from '../../../../relay/server/journal/journalFs';
import { post, tempDir } from '../support/helpers';
import { Signal } from '../../../support/until';

/** node:fs, but the journal's open (its first readdir) waits until release(). */
function heldJournal(): { fs: JournalFs; release: () => void; reached: Promise<void> } {
  let release!: () => void;
  let reach!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const reached = new Promise<void>((r) => (reach = r));
  let first = true;
  const readdir = async (dir: string) => {
    if (first) {
      first = false;
      reach();
      await held;
    }
    return nodeFs.readdir(dir);
  };
  return { fs: { ...nodeFs, readdir }, release, reached };
}

describe('subscribe(): reconnect when the relay is back', function () {
  this.timeout(20_000);
  let relay: RelayServer | undefined;
  afterEach(async () => relay?.close());

  it('connects again once the relay answers, whatever the backoff has grown to', async () => {
    const dataDir = tempDir();
    relay = await startRelay({ port: 0, dataDir, forward: [] });
    const { port, token } = relay;
    const states: SubscriptionState['state'][] = [];
    const got: DeliveryMessage['delivery'][] = [];
    const changed = new Signal();
    const sub = subscribe({
      url: `ws://127.0.0.1:${port}`,
      token,
      backoff: { initialMs: 60_000, maxMs: 60_000 },
      onState: (s) => (states.push(s.state), changed.wake()),
      onDelivery: (d) => void (got.push(d), changed.wake()),
    });
    try {
      await changed.until(() => states.includes('open'));
      await relay.close();
      relay = undefined;
      await changed.until(() => states.includes('reconnecting'));
      relay = await startRelay({ port, dataDir, forward: [] });
      assert.equal(relay.token, token, 'the same relay, back');
      await changed.until(() => states.filter((s) => s === 'open').length === 2);
      assert.equal((await post(`http://127.0.0.1:${port}/hooks/default`, '{"back":true}')).status, 200);
      await changed.until(() => got.length === 1);
      assert.equal(got[0]!.channel, 'default');
    } finally {
      sub.close();
      await sub.closed;
    }
  });

  it('keeps the backoff while the port answers and the upgrade fails: probes, not reconnects', async () => {
    let upgrades = 0;
    let probes = 0;
    let wake = () => {};
    const server = createServer((_req, res) => res.writeHead(503).end());
    server.on('upgrade', (_req, sock) => {
      upgrades++;
      sock.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    });
    // A probe connects and closes without a byte.
    server.on('connection', (sock) => sock.once('close', () => sock.bytesRead === 0 && (probes++, wake())));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const states: SubscriptionState[] = [];
    const sub = subscribe({
      url: `ws://127.0.0.1:${(server.address() as { port: number }).port}`,
      token: 't',
      backoff: { initialMs: 60_000, maxMs: 60_000 },
      onState: (s) => states.push(s),
      onDelivery: () => undefined,
    });
    try {
      await new Promise<void>((resolve) => (wake = () => probes >= 3 && resolve()));
      assert.equal(upgrades, 1, 'one upgrade: the port answering is no reason to try again before the backoff');
      assert.deepEqual(
        states.map((s) => s.state),
        ['connecting', 'reconnecting'],
      );
    } finally {
      sub.close();
      await sub.closed;
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('a relay back but loading its journal (503, Retry-After: 1) is tried again a second later, not after the backoff', async () => {
    const dataDir = tempDir();
    relay = await startRelay({ port: 0, dataDir, forward: [] });
    const { port, token } = relay;
    const states: SubscriptionState[] = [];
    const changed = new Signal();
    const sub = subscribe({
      url: `ws://127.0.0.1:${port}`,
      token,
      backoff: { initialMs: 60_000, maxMs: 60_000 },
      onState: (s) => (states.push(s), changed.wake()),
      onDelivery: () => undefined,
    });
    try {
      await changed.until(() => states.some((s) => s.state === 'open'));
      await relay.close();
      relay = undefined;
      const held = heldJournal();
      const started = startRelay({ port, dataDir, forward: [], journalFs: held.fs });
      await held.reached;
      await changed.until(() => states.some((s) => s.state === 'reconnecting' && s.refused === 503));
      held.release();
      relay = await started;
      await changed.until(() => states.filter((s) => s.state === 'open').length === 2);
    } finally {
      sub.close();
      await sub.closed;
    }
  });
});
