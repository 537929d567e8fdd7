// Issue 24 (the public path): a subscriber acknowledged each delivery with a write of its own,
// between the app's answer and the next delivery's post; the acknowledgements of deliveries
// handled while more wait now go together (relay/client/subscribe.ts ACK_BATCH). What they carry
// (the app's status, recorded by the relay as the delivery's forward state) must still reach the
// relay for every delivery handled, also when the connection is cut while some are held: they go
// as reports on the next connection. And `forwards=0` spares the subscriber the ForwardMessages.
import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import { startRelay, type RelayServer } from '../../../../../relay/server';
import { subscribe, type ServerMessage } from '../../../../../relay/client';
import { SUBSCRIBER_TARGET } from '../../../../../src/core/relay/protocol';
import WebSocket from 'ws';
import { post, tempDir } from '../../support/helpers';
import { until } from '../../../../support/until';

/** A TCP proxy to the relay whose connections the test can cut. */
async function cuttableProxy(port: number): Promise<{ port: number; cut: () => void; close: () => void }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const end = () => (client.destroy(), upstream.destroy());
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as { port: number }).port,
    cut: () => {
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    close: () => server.close(),
  };
}

/** The subscriber forward state of `seq` the relay recorded. */
function stateOf(relay: RelayServer, seq: number): string | undefined {
  return relay.store.get(seq)?.summary.forward.find((f) => f.target === SUBSCRIBER_TARGET)?.status;
}

describe('relay subscribers: acknowledgements sent together, none lost', function () {
  this.timeout(30_000);
  let relay: RelayServer;
  beforeEach(async () => (relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [] })));
  afterEach(() => relay.close());

  it('every handled delivery has its forward state at the relay, in order, also when the connection is cut while acks are held', async () => {
    const N = 12;
    for (let i = 1; i <= N; i++) assert.equal((await post(`${relay.url}/hooks/default`, `{"n":${i}}`)).status, 200);
    const proxy = await cuttableProxy(relay.port);
    const got: number[] = [];
    let inFlight = 0;
    let cut = false;
    let lost = () => {};
    const gone = new Promise<void>((r) => (lost = r));
    const sub = subscribe({
      url: `ws://127.0.0.1:${proxy.port}/ws`,
      token: relay.token,
      since: 0, // all 12 at once: the later ones wait while the first are handled
      backoff: { initialMs: 10, maxMs: 50 },
      onState: (st) => st.state === 'reconnecting' && lost(),
      onDelivery: async (d) => {
        assert.equal(inFlight++, 0, 'one delivery at a time');
        got.push(d.seq);
        if (d.seq === 5 && !cut) {
          // 1-4 handled, their acks held (the others wait); 5's app answers after the connection is gone.
          cut = true;
          proxy.cut();
          await gone;
        }
        await Promise.resolve();
        inFlight--;
        return { forwarded: { status: 200 } };
      },
    });
    await until(
      () => (stateOf(relay, N) === 'ok' ? true : undefined),
      (wake) => (relay.store.on('forward', wake), () => relay.store.off('forward', wake)),
    );
    sub.close();
    await sub.closed;
    proxy.close();
    assert.deepEqual(
      got,
      Array.from({ length: N }, (_, i) => i + 1),
      'each once, in order',
    );
    assert.deepEqual(
      Array.from({ length: N }, (_, i) => stateOf(relay, i + 1)),
      Array.from({ length: N }, () => 'ok'),
      "every delivery's 200 reached the relay (those held at the cut as reports)",
    );
  });

  it('concurrency 4: four handled at once; acks and lastSeq move over a finished prefix only; a reconnect hands none over twice', async () => {
    const N = 10;
    for (let i = 1; i <= N; i++) assert.equal((await post(`${relay.url}/hooks/default`, `{"n":${i}}`)).status, 200);
    const proxy = await cuttableProxy(relay.port);
    const calls = new Map<number, number>();
    const finished = new Set<number>();
    const states: string[] = [];
    let running = 0;
    let most = 0;
    let release2 = () => {};
    const held = new Promise<void>((r) => (release2 = r));
    const wakers = new Set<() => void>();
    const wake = () => [...wakers].forEach((w) => w());
    const when = (check: () => boolean) =>
      until(
        () => (check() ? true : undefined),
        (w) => (wakers.add(w), () => wakers.delete(w)),
      );
    const sub = subscribe({
      url: `ws://127.0.0.1:${proxy.port}/ws`,
      token: relay.token,
      since: 0,
      concurrency: 4,
      backoff: { initialMs: 10, maxMs: 50 },
      onState: (st) => (states.push(st.state), wake()),
      onDelivery: async (d) => {
        calls.set(d.seq, (calls.get(d.seq) ?? 0) + 1);
        most = Math.max(most, ++running);
        if (d.seq === 2) await held;
        else await Promise.resolve();
        running--;
        finished.add(d.seq);
        wake();
        return { forwarded: { status: 200 } };
      },
    });
    try {
      await when(() => finished.size === N - 1);
      assert.equal(most, 4, 'four at once, never more');
      await until(
        () => (stateOf(relay, 1) === 'ok' ? true : undefined),
        (w) => (relay.store.on('forward', w), () => relay.store.off('forward', w)),
      );
      assert.equal(sub.lastSeq, 1, 'the resume point stops before 2, still in flight');
      for (let seq = 3; seq <= N; seq++) assert.equal(stateOf(relay, seq), undefined, `#${seq} is not acknowledged while 2 is in flight`);
      // The connection is cut: the relay sends 2-10 again on the next one, and none is handed over twice.
      proxy.cut();
      await when(() => states.filter((st) => st === 'caught-up').length === 2);
      release2();
      await until(
        () => (stateOf(relay, N) === 'ok' ? true : undefined),
        (w) => (relay.store.on('forward', w), () => relay.store.off('forward', w)),
      );
      assert.deepEqual(
        Array.from({ length: N }, (_, i) => [i + 1, calls.get(i + 1), stateOf(relay, i + 1)]),
        Array.from({ length: N }, (_, i) => [i + 1, 1, 'ok']),
        'each handled once, each acknowledged with its 200',
      );
      assert.equal(sub.lastSeq, N);
    } finally {
      sub.close();
      await sub.closed;
      proxy.close();
    }
  });

  it('forwards=0: no ForwardMessage for the deliveries it acknowledged; without it, one each', async () => {
    const seen = { quiet: [] as string[], told: [] as string[] };
    const sockets: WebSocket[] = [];
    for (const [key, query] of [
      ['quiet', '&forwards=0'],
      ['told', ''],
    ] as const) {
      const ws = new WebSocket(`ws://127.0.0.1:${relay.port}/ws?since=0${query}`, { headers: { authorization: `Bearer ${relay.token}` } });
      ws.on('message', (data) => {
        const msg = JSON.parse(data.toString()) as ServerMessage;
        seen[key].push(msg.type);
        if (msg.type === 'delivery') ws.send(JSON.stringify({ type: 'ack', seq: msg.delivery.seq, forwarded: { status: 200 } }));
      });
      await once(ws, 'open');
      sockets.push(ws);
    }
    assert.equal((await post(`${relay.url}/hooks/default`, '{"n":1}')).status, 200);
    // Both acknowledge: two forward records; the subscriber that asked for them hears of both.
    await until(
      () => (seen.told.filter((t) => t === 'forward').length >= 2 && seen.quiet.includes('delivery') ? true : undefined),
      (wake) => {
        for (const ws of sockets) ws.on('message', wake);
        return () => sockets.forEach((ws) => ws.off('message', wake));
      },
    );
    // A ping round trip after the last forward: anything sent to `quiet` before it has arrived.
    sockets[0]!.ping();
    await once(sockets[0]!, 'pong');
    for (const ws of sockets) ws.close();
    assert.deepEqual(
      seen.quiet.filter((t) => t === 'forward'),
      [],
    );
  });
});
