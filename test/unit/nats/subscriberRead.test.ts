// A subscriber's delivery whose body the store cannot read right now (issue 21): JetStream while
// a replica hangs or the connection fails over answers a read with StoreUnavailableError after
// its 10 s. The delivery must then wait, with the subscriber connected, and go out with its body
// once a read succeeds; never without it (a forwarding subscriber fails on a delivery without a
// body, reconnects, and was sent the same cached body-less message again). A relay-side cut of
// the connection is retried within a second. Real file store, hub, HTTP server and ws client; the
// store's read fails (as JetStream's does) for the reads the test picks.
import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { StoreUnavailableError } from '../../../relay/server/base/errors';
import { DeliveryStore } from '../../../relay/server/store/store';
import type { RelayStore } from '../../../relay/server/base/storeTypes';
import { SubscriberHub } from '../../../relay/server/subscribers/subscribers';
import { subscribe, type Subscription, type SubscriptionState } from '../../../relay/client';
import type { DeliveryMessage } from '../../../src/core/relay/protocol';
import { tempDir } from '../relay/support/helpers';

const TOKEN = 'read-retry-token';
type Delivery = DeliveryMessage['delivery'];

interface Harness {
  store: DeliveryStore;
  /** Reads of these seqs fail with StoreUnavailableError while the set holds them. */
  failing: Set<number>;
  /** Resolves once `seq` has been read `n` times. */
  readTimes(seq: number, n: number): Promise<void>;
  /** The upgraded sockets, to cut from the relay's side. */
  sockets: Duplex[];
  url: string;
  close(): Promise<void>;
}

async function harness(): Promise<Harness> {
  const store = await DeliveryStore.open(tempDir());
  const failing = new Set<number>();
  const reads = new Map<number, number>();
  const readWaiters = new Set<() => void>();
  const flaky: RelayStore = new Proxy(store, {
    get(target, key) {
      if (key === 'openBody') return undefined; // read whole, as the JetStream store does
      if (key === 'read') {
        return async (seq: number) => {
          reads.set(seq, (reads.get(seq) ?? 0) + 1);
          for (const w of readWaiters) w();
          if (failing.has(seq)) throw new StoreUnavailableError(`JetStream did not answer a read of delivery ${seq}: TIMEOUT`);
          return target.read(seq);
        };
      }
      const v = target[key as keyof DeliveryStore];
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const hub = new SubscriberHub(flaky, {
    authenticate: (given) => (given === TOKEN ? { kind: 'admin' } : undefined),
    boundHost: '127.0.0.1',
    allowedHosts: [],
    allowedOrigins: [],
    readRetryMs: 20,
  });
  const server: Server = createServer((_req, res) => res.writeHead(404).end());
  const sockets: Duplex[] = [];
  server.on('upgrade', (req, socket, head) => (sockets.push(socket), hub.upgrade(req, socket, head, new URL(req.url!, 'http://relay.invalid'))));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    store,
    failing,
    sockets,
    readTimes: (seq, n) =>
      new Promise<void>((resolve) => {
        const check = () => (reads.get(seq) ?? 0) >= n && (readWaiters.delete(check), resolve());
        readWaiters.add(check);
        check();
      }),
    url: `ws://127.0.0.1:${(server.address() as { port: number }).port}/ws`,
    close: async () => {
      hub.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await store.close();
    },
  };
}

const add = (store: DeliveryStore, body: string) =>
  store.add({ channel: 'default', verification: 'unverified', headers: [['content-type', 'application/json']], targets: [] }, Buffer.from(body));

/** A subscriber that, like `service-hooks forward`, fails on a delivery without its body. */
class Forwarder {
  readonly handled: Delivery[] = [];
  readonly bodyless: number[] = [];
  readonly states: SubscriptionState[] = [];
  readonly sub: Subscription;
  private readonly waiters = new Set<() => void>();

  constructor(url: string) {
    this.sub = subscribe({
      url,
      token: TOKEN,
      since: 0,
      onState: (s) => (this.states.push(s), this.changed()),
      onDelivery: (d) => {
        if (d.bodyBase64 === undefined) {
          this.bodyless.push(d.seq);
          throw new TypeError(`delivery ${d.seq} has no body`);
        }
        this.handled.push(d);
        this.changed();
      },
    });
  }

  /** Resolves once `pred` holds (checked on every delivery and state). */
  until(pred: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => pred() && (this.waiters.delete(check), resolve());
      this.waiters.add(check);
      check();
    });
  }

  get bodies(): [number, string][] {
    return this.handled.map((d) => [d.seq, Buffer.from(d.bodyBase64!, 'base64').toString()]);
  }

  private changed(): void {
    for (const w of this.waiters) w();
  }
}

describe('relay subscribers: a body the store cannot read right now (issue 21)', function () {
  this.timeout(20_000);
  let h: Harness | undefined;
  let f: Forwarder | undefined;

  afterEach(async () => {
    f?.sub.close();
    await f?.sub.closed;
    await h?.close();
    f = h = undefined;
  });

  it('waits, connected, and sends the delivery with its body once a read succeeds, then the ones after it', async () => {
    h = await harness();
    await add(h.store, '{"n":1}');
    await add(h.store, '{"n":2}');
    h.failing.add(1);
    f = new Forwarder(h.url);
    // Read again after failing (the fix), or sent without its body (the defect): whichever comes first.
    await Promise.race([h.readTimes(1, 3), f.until(() => f!.bodyless.length > 0)]);
    assert.deepEqual(f.bodyless, [], 'never sent without its body');
    assert.deepEqual(f.handled, [], 'nothing sent while its body cannot be read (seq order)');
    h.failing.delete(1);
    await f.until(() => f!.handled.length === 2);
    assert.deepEqual(f.bodies, [
      [1, '{"n":1}'],
      [2, '{"n":2}'],
    ]);
    assert.deepEqual(f.bodyless, []);
    assert.deepEqual(
      f.states.filter((s) => s.state === 'reconnecting'),
      [],
      'the subscriber was never cut',
    );
  });

  it('a connection the relay cuts is tried again within a second, and resumes after the last delivery handled', async () => {
    h = await harness();
    await add(h.store, '{"n":1}');
    f = new Forwarder(h.url);
    await f.until(() => f!.handled.length === 1);
    h.sockets[0]!.destroy();
    await f.until(() => f!.states.some((s) => s.state === 'reconnecting'));
    const retry = f.states.find((s) => s.state === 'reconnecting') as Extract<SubscriptionState, { state: 'reconnecting' }>;
    assert.ok(retry.delayMs <= 1000, `first retry after ${retry.delayMs} ms`);
    await f.until(() => h!.sockets.length === 2 && f!.states.filter((s) => s.state === 'open').length === 2);
    await add(h.store, '{"n":2}');
    await f.until(() => f!.handled.length === 2);
    assert.deepEqual(f.bodies, [
      [1, '{"n":1}'],
      [2, '{"n":2}'],
    ]);
  });
});
