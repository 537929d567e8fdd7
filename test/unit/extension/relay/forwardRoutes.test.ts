// A forward set-up with routes and a filter (issue 38 item 7) through the editor's forwarder and
// connection, with a real relay and two real apps: each app gets only its events, the event the
// filter leaves out is acknowledged as skipped, and the relay records it so (the Relay view's row
// says "skipped by the filter", not delivered nor failed).
import { strict as assert } from 'node:assert';
import { request } from 'undici';
import * as client from '../../../../relay/client';
import { startRelay, type RelayServer } from '../../../../relay/server';
import { filters, routeOf, type ForwardRouting } from '../../../../src/core/relay/forwardRouting';
import { forwardSummary, seqKey } from '../../../../src/core/tree';
import { RelayConnection } from '../../../../src/extension/relay/connection';
import { EditorForwarder } from '../../../../src/extension/relay/forwarding';
import { signed, startTarget, tempDir, type TargetApp } from '../../relay/support/helpers';

const SECRET = 'forward-routes-secret-0123456789';

function changed(conn: RelayConnection, check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (check()) return resolve();
    const sub = conn.onDidChange(() => check() && (sub.dispose(), resolve()));
  });
}

describe('editor forwarding: a set-up with routes and an event filter', function () {
  this.timeout(60_000);
  let relay: RelayServer;
  const apps: TargetApp[] = [];
  const open: RelayConnection[] = [];
  afterEach(async () => {
    for (const c of open.splice(0)) await c.close();
    await relay.close();
    for (const a of apps.splice(0)) await a.close();
  });

  it('push to the default app, release to its own, issues skipped by the filter and recorded so', async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir(), secrets: [SECRET], forward: [] });
    const main = await startTarget();
    const releases = await startTarget();
    apps.push(main, releases);
    const setup: ForwardRouting = { to: main.url, routes: { release: releases.url }, events: ['push', 'release'] };
    const stored = new Map<string, unknown>();
    const handled: [number, object][] = [];
    const forwarder = new EditorForwarder({
      client,
      targetFor: (channel, event) => (channel === 'default' ? routeOf(setup, event) : undefined),
      skipsByFilter: (channel) => channel === 'default' && filters(setup),
      holdPerTarget: true,
      store: { get: (k) => stored.get(k), set: (k, v) => void stored.set(k, v) },
      key: seqKey(relay.url),
      onHandled: (seq, r) => handled.push([seq, r]),
    });
    const conn = new RelayConnection({
      endpoint: { httpUrl: relay.url, wsUrl: `ws://127.0.0.1:${relay.port}/ws`, token: relay.token, label: 'test' },
      client,
      since: forwarder.since,
      handle: forwarder.handle,
      onOpen: (head) => forwarder.remember(head),
    });
    forwarder.attach(conn);
    open.push(conn);
    await conn.open();
    for (const event of ['push', 'release', 'issues']) {
      const body = JSON.stringify({ event });
      const res = await request(`${relay.url}/hooks/default`, { method: 'POST', headers: { 'x-service-event': event, ...signed(SECRET, body) }, body });
      await res.body.dump();
    }
    const row = (seq: number) => (conn.live.get(seq) ? forwardSummary(conn.live.get(seq)!) : undefined);
    await changed(conn, () => row(1) === '→ 200 (subscriber)' && row(2) === '→ 200 (subscriber)' && row(3)?.startsWith('skipped by the filter') === true);
    assert.deepEqual(
      main.received.map((r) => r.body.toString()),
      ['{"event":"push"}'],
    );
    assert.deepEqual(
      releases.received.map((r) => r.body.toString()),
      ['{"event":"release"}'],
    );
    assert.deepEqual(handled, [
      [1, { status: 200 }],
      [2, { status: 200 }],
      [3, { skipped: 'skipped by the filter' }],
    ]);
    // The relay's own record: skipped, neither delivered nor failed.
    const listed = await conn.api.listDeliveries({ limit: 10 });
    const issues = listed.deliveries.find((d) => d.event === 'issues');
    assert.deepEqual(
      issues?.forward.map((f) => f.status),
      ['skipped'],
    );
    forwarder.stop();
  });
});
