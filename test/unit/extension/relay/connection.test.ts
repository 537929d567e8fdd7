// The editor's relay connection against a real relay: catch-up costs one status request however
// many deliveries it replays, a reconnect resumes with no gap, and forwarding in the editor
// acknowledges only after the app's 2xx and resumes from the stored seq.
import { strict as assert } from 'node:assert';
import { Agent, request } from 'undici';
import * as client from '../../../../relay/client';
import { startRelay, type RelayServer } from '../../../../relay/server';
import { loadTls } from '../../../../relay/server/tls';
import { SUBSCRIBER_TARGET } from '../../../../src/core/relay/protocol';
import { forwardSummary, seqKey } from '../../../../src/core/tree';
import { extraCa, RelayConnection, type RelayEndpoint } from '../../../../src/extension/relay/connection';
import { EditorForwarder } from '../../../../src/extension/relay/forwarding';
import { makeTestCerts } from '../../relay/support/certs';
import { signed, startTarget, tempDir, type TargetApp } from '../../relay/support/helpers';
import { until as untilWoken } from '../../../support/until';

const SECRET = 'connection-test-secret-0123456789';

function endpoint(relay: { port: number; token: string }): RelayEndpoint {
  return { httpUrl: `http://127.0.0.1:${relay.port}`, wsUrl: `ws://127.0.0.1:${relay.port}/ws`, token: relay.token, label: `port ${relay.port}` };
}

/** Posts `n` deliveries, `parallel` at a time; returns their bodies in order of seq. */
async function fill(port: number, n: number, from = 0, parallel = 64): Promise<void> {
  for (let i = 0; i < n; i += parallel) {
    await Promise.all(
      Array.from({ length: Math.min(parallel, n - i) }, async (_, j) => {
        const body = JSON.stringify({ n: from + i + j });
        const res = await request(`http://127.0.0.1:${port}/hooks/default`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-event': 'push', ...signed(SECRET, body) },
          body,
        });
        await res.body.dump();
        assert.equal(res.statusCode, 200);
      }),
    );
  }
}

/** Resolves when `check` holds, re-checked on each change event of the connection (helpers' until). */
async function until(conn: RelayConnection, check: () => boolean): Promise<void> {
  await untilWoken(
    () => check() || undefined,
    (wake) => {
      const sub = conn.onDidChange(wake);
      return () => sub.dispose();
    },
  );
}

describe('editor relay connection (src/extension/relay)', function () {
  this.timeout(120_000);
  const open: RelayConnection[] = [];
  let relay: RelayServer | undefined;
  let app: TargetApp | undefined;

  afterEach(async () => {
    for (const c of open.splice(0)) await c.close();
    await relay?.close();
    relay = undefined;
    await app?.close();
    app = undefined;
  });

  it('catching up on 2,000 deliveries makes one status request, and a reconnect with 1,000 more makes one more', async () => {
    const dataDir = tempDir();
    relay = await startRelay({ port: 0, dataDir, secrets: [SECRET], forward: [] });
    const port = relay.port;
    await fill(port, 2000);
    const conn = new RelayConnection({
      endpoint: endpoint(relay),
      client,
      since: 0,
      coalesceMs: 20,
      log: (_l, line) => process.env.DEBUG_CONN && console.log(conn.statusRequests, line),
    });
    open.push(conn);
    await conn.open();
    assert.equal(conn.statusRequests, 1, 'one at open');
    await until(conn, () => conn.catchUps === 1);
    assert.equal(conn.live.size, 2000);
    assert.equal(conn.statusRequests, 2, 'open + one after catch-up, not one per delivery');
    assert.deepEqual(
      conn.live.newestFirst(3).map((d) => d.seq),
      [2000, 1999, 1998],
    );

    // Cut: the relay goes away; 1,000 deliveries arrive meanwhile (through the same data folder).
    await relay.close();
    await until(conn, () => conn.state === 'connecting');
    const meanwhile = await startRelay({ port: 0, dataDir, secrets: [SECRET], forward: [] });
    await fill(meanwhile.port, 1000, 2000);
    await meanwhile.close();
    relay = await startRelay({ port, dataDir, secrets: [SECRET], forward: [] });
    await until(conn, () => conn.catchUps === 2);
    assert.equal(conn.status?.lastSeq, 3000);
    assert.equal(conn.statusRequests, 3, 'one status request for the whole replay after the reconnect');
    const seqs = conn.live.newestFirst().map((d) => d.seq);
    assert.equal(new Set(seqs).size, 3000, 'no duplicate');
    assert.equal(Math.min(...seqs), 1, 'no gap');
  });

  // Changed with the forwarding rules (issue 27 §1): a 502 no longer holds back the deliveries
  // after it (they went out in seq order behind it, acked only after its 2xx); it is retried on
  // the schedule while they go on, and its later 200 is reported to the relay.
  it('forwards byte-exact, a 502 is retried while later deliveries go on, and a new connection resumes from the stored seq', async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir(), secrets: [SECRET], forward: [] });
    app = await startTarget();
    // The app fails the first attempt of the first two deliveries.
    app.statusFor = (r, all) => (all.filter((x) => x.body.equals(r.body)).length === 1 && !r.body.toString().includes('"c"') ? 502 : 200);
    const stored = new Map<string, number>();
    const store = { get: (k: string) => stored.get(k), set: (k: string, v: number) => void stored.set(k, v) };
    const key = seqKey(`http://127.0.0.1:${relay.port}`);
    const problems: (string | undefined)[] = [];
    const forwarder = () =>
      new EditorForwarder({
        client,
        targetFor: () => app!.url,
        store,
        key,
        schedule: [0, 5, 5, 5],
        onProblem: (p) => problems.push(p),
      });
    const f1 = forwarder();
    const conn = new RelayConnection({ endpoint: endpoint(relay), client, since: f1.since, handle: f1.handle, onOpen: (head) => f1.remember(head) });
    f1.attach(conn);
    open.push(conn);
    await conn.open();
    await until(conn, () => conn.state === 'running');
    assert.equal(stored.get(key), 0, 'the head at the first connect is the resume point');

    const bodies = ['{"a":1}', '{"b":"\u00e9"}', '{"c":[1,2,3]}'];
    for (const b of bodies) {
      const res = await request(`http://127.0.0.1:${relay.port}/hooks/default`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-event': 'push', ...signed(SECRET, b) },
        body: b,
      });
      await res.body.dump();
    }
    await app.waitUntil((r) => r.filter((x) => x.status === 200).length === 3);
    await until(conn, () => stored.get(key) === 3 && f1.retrying().length === 0);
    // Each ack carries the app's status: the relay records it (as for `service-hooks forward`) and
    // the Relay view shows "→ 200 (subscriber)", not "not forwarded".
    const byEditor = (seq: number) => conn.live.get(seq)?.forward.find((f) => f.target === SUBSCRIBER_TARGET);
    await until(conn, () => [1, 2, 3].every((seq) => byEditor(seq)?.status === 'ok'));
    assert.deepEqual(relay.store.get(3)!.summary.forward, [{ target: SUBSCRIBER_TARGET, status: 'ok', lastStatus: 200, attempts: 1 }]);
    assert.deepEqual(
      relay.store.get(1)!.summary.forward.map(({ target, status, lastStatus }) => ({ target, status, lastStatus })),
      [{ target: SUBSCRIBER_TARGET, status: 'ok', lastStatus: 200 }],
    );
    assert.deepEqual(
      (await relay.store.detail(1))!.attempts.map((a) => a.status),
      [502, 200],
      "the 502, then the retry's 200 reported",
    );
    assert.equal(forwardSummary(conn.live.get(3)!), '→ 200 (subscriber)');
    assert.ok(
      problems.some((p) => p?.includes('retrying')),
      'the 502s showed as retrying',
    );
    assert.equal(problems.at(-1), undefined, 'recovered');
    assert.deepEqual([...new Set(app.received.map((x) => x.body.toString('utf8')))], bodies, 'first attempts in seq order');
    assert.equal(app.received.length, 5, 'two 502s and three 200s');
    const ok = app.received.filter((x) => x.status === 200);
    assert.deepEqual(ok.map((x) => x.body.toString('utf8')).sort(), [...bodies].sort(), 'byte-exact, each once');
    assert.ok(ok.every((x) => typeof x.headers['x-service-signature'] === 'string'));
    await conn.close();

    // Two more while the editor is away; a new connection (a restarted editor) forwards exactly those.
    for (const b of ['{"d":4}', '{"e":5}']) {
      const res = await request(`http://127.0.0.1:${relay.port}/hooks/default`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signed(SECRET, b) },
        body: b,
      });
      await res.body.dump();
    }
    const f2 = forwarder();
    assert.equal(f2.since, 3);
    const again = new RelayConnection({ endpoint: endpoint(relay), client, since: f2.since, handle: f2.handle, onOpen: (head) => f2.remember(head) });
    f2.attach(again);
    open.push(again);
    await again.open();
    await app.waitUntil((r) => r.filter((x) => x.status === 200).length === 5);
    await until(again, () => stored.get(key) === 5);
    assert.deepEqual(
      app.received
        .filter((x) => x.status === 200)
        .slice(3)
        .map((x) => x.body.toString('utf8')),
      ['{"d":4}', '{"e":5}'],
      'no gap, no duplicate',
    );
  });

  it('a new connection starts with no rows: two relays never mix', async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir(), secrets: [SECRET], forward: [] });
    await fill(relay.port, 3);
    const other = await startRelay({ port: 0, dataDir: tempDir(), secrets: [SECRET], forward: [] });
    try {
      const a = new RelayConnection({ endpoint: endpoint(relay), client });
      open.push(a);
      await a.open();
      assert.equal(a.live.size, 3);
      const b = new RelayConnection({ endpoint: endpoint(other), client });
      open.push(b);
      await b.open();
      assert.equal(b.live.size, 0);
      await until(a, () => a.catchUps === 1); // nothing to replay: the catch-up ends at once
      await until(b, () => b.catchUps === 1);
      assert.equal(a.statusRequests, 2);
    } finally {
      await other.close();
    }
  });

  it('a wrong token fails open() with the relay status (401), before subscribing', async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [] });
    const conn = new RelayConnection({ endpoint: { ...endpoint(relay), token: 'wrong' }, client });
    open.push(conn);
    await assert.rejects(conn.open(), (err: Error & { status?: number }) => err.status === 401);
    assert.equal(conn.lastSeq, undefined, 'no subscription');
  });
});

describe('editor relay connection over TLS', function () {
  this.timeout(60_000);

  it('subscribes over wss:// with the CAs it is given (NODE_EXTRA_CA_CERTS in the editor), and says why without them', async () => {
    const certs = makeTestCerts();
    const relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [], tls: loadTls({ cert: certs.serverCert, key: certs.serverKey }) });
    const dispatcher = new Agent({ connect: { ca: certs.ca } });
    try {
      const ep: RelayEndpoint = { httpUrl: `https://127.0.0.1:${relay.port}`, wsUrl: `wss://127.0.0.1:${relay.port}/ws`, token: relay.token, label: 'tls' };
      const ca = extraCa({ NODE_EXTRA_CA_CERTS: certs.caCert });
      assert.ok(ca && ca.length > 1 && ca.some((c) => Buffer.from(c).equals(certs.ca)), 'the default CAs plus the file');
      assert.equal(extraCa({}), undefined);
      // REST over the same CA (undici's global dispatcher does not know it: give RelayApi one).
      const clientWithCa = {
        ...client,
        RelayApi: class extends client.RelayApi {
          constructor(o: ConstructorParameters<typeof client.RelayApi>[0]) {
            super({ ...o, dispatcher });
          }
        },
      };
      const conn = new RelayConnection({ endpoint: ep, client: clientWithCa as typeof client, ca });
      await conn.open();
      assert.equal(conn.state, 'running');
      await conn.close();
      const without = new RelayConnection({ endpoint: ep, client: clientWithCa as typeof client });
      await assert.rejects(without.open(), /certificate/);
    } finally {
      await dispatcher.close();
      await relay.close();
    }
  });
});

describe('editor relay connection with a channel token', function () {
  this.timeout(60_000);

  it('forwards a delivery the relay replays to its subscribers to the app again, resume point kept (issue 27 §3)', async () => {
    const relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [] });
    const target = await startTarget();
    const conns: RelayConnection[] = [];
    try {
      const admin = new client.RelayApi({ baseUrl: `http://127.0.0.1:${relay.port}`, token: relay.token });
      const alice = await admin.createChannel({ name: 'alice', secrets: [SECRET] });
      const stored = new Map<string, number>();
      const forwarder = new EditorForwarder({
        client,
        targetFor: () => target.url,
        store: { get: (k) => stored.get(k), set: (k, v) => void stored.set(k, v as number) },
        key: 'k',
      });
      const conn = new RelayConnection({
        endpoint: { ...endpoint(relay), token: alice.token },
        client,
        since: forwarder.since,
        handle: forwarder.handle,
        replay: forwarder.replay,
        onOpen: (head) => forwarder.remember(head),
      });
      conns.push(conn);
      forwarder.attach(conn);
      await conn.open();
      await until(conn, () => conn.state === 'running');
      const body = '{"n":1}';
      const res = await request(`http://127.0.0.1:${relay.port}/hooks/alice`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signed(SECRET, body) },
        body,
      });
      await res.body.dump();
      await until(conn, () => conn.live.get(1)?.forward.find((f) => f.target === SUBSCRIBER_TARGET)?.status === 'ok');
      assert.equal(stored.get('k'), 1);

      const own = new client.RelayApi({ baseUrl: `http://127.0.0.1:${relay.port}`, token: alice.token });
      assert.deepEqual(await own.replayToSubscribers(1), { subscribers: 1 });
      await target.waitFor(2);
      assert.deepEqual(
        target.received.map((r) => r.body.toString()),
        [body, body],
      );
      const replayed = new Promise<void>((resolve) => relay.store.on('forward', (seq, a) => seq === 1 && a.replay && resolve()));
      if (!(await relay.store.detail(1))!.attempts.some((a) => a.replay)) await replayed;
      assert.deepEqual(
        (await relay.store.detail(1))!.attempts.map((a) => [a.status, a.replay === true]),
        [
          [200, false],
          [200, true],
        ],
      );
      assert.equal(stored.get('k'), 1, 'the resume point stays');
    } finally {
      for (const c of conns) await c.close();
      await target.close();
      await relay.close();
    }
  });

  it('sees only its channel: rows, live stream and status', async () => {
    const relay = await startRelay({ port: 0, dataDir: tempDir(), forward: [] });
    try {
      const admin = new client.RelayApi({ baseUrl: `http://127.0.0.1:${relay.port}`, token: relay.token });
      const alice = await admin.createChannel({ name: 'alice', secrets: [SECRET] });
      await admin.createChannel({ name: 'bob', secrets: [SECRET] });
      const send = async (channel: string, body: string) => {
        const res = await request(`http://127.0.0.1:${relay.port}/hooks/${channel}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...signed(SECRET, body) },
          body,
        });
        await res.body.dump();
        assert.equal(res.statusCode, 200);
      };
      await send('alice', '{"n":1}');
      await send('bob', '{"n":2}');
      const conn = new RelayConnection({ endpoint: { ...endpoint(relay), token: alice.token }, client, coalesceMs: 10 });
      try {
        await conn.open();
        assert.deepEqual(
          conn.live.newestFirst().map((d) => d.channel),
          ['alice'],
        );
        await send('bob', '{"n":3}');
        await send('alice', '{"n":4}');
        await until(conn, () => conn.live.size === 2);
        assert.deepEqual(
          conn.live.newestFirst().map((d) => d.channel),
          ['alice', 'alice'],
        );
        assert.ok(
          (conn.status?.channels ?? []).every((c) => c.name === 'alice'),
          JSON.stringify(conn.status),
        );
      } finally {
        await conn.close();
      }
    } finally {
      await relay.close();
    }
  });
});
