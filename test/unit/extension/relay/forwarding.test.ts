// The editor's forwarding (src/extension/relay/forwarding.ts: EditorForwarder over relay/client's
// ForwardEngine) with a real relay, a real app and the editor's RelayConnection; the retry
// schedule runs on an injected clock. What the Relay view and the editor helper read: the rows'
// forward summary, retrying(), retryNow(seq), skip(seq), and the state kept across a restart.
import { strict as assert } from 'node:assert';
import { request } from 'undici';
import * as client from '../../../../relay/client';
import type { EngineClock } from '../../../../relay/client';
import { startRelay, type RelayServer } from '../../../../relay/server';
import { forwardSummary, seqKey } from '../../../../src/core/tree';
import { RelayConnection } from '../../../../src/extension/relay/connection';
import { EditorForwarder } from '../../../../src/extension/relay/forwarding';
import { signed, startTarget, tempDir, type TargetApp } from '../../relay/support/helpers';

const SECRET = 'forwarding-test-secret-0123456789';

class ManualClock implements EngineClock {
  private t = Date.parse('2026-11-25T12:00:00Z');
  private timers = new Map<number, { at: number; fn: () => void }>();
  private id = 0;
  now = () => this.t;
  setTimeout = (fn: () => void, ms: number) => (this.timers.set(++this.id, { at: this.t + ms, fn }), this.id);
  clearTimeout = (h: unknown) => void this.timers.delete(h as number);
  advance(ms: number): void {
    this.t += ms;
    for (const [id, x] of [...this.timers].sort((a, b) => a[1].at - b[1].at))
      if (x.at <= this.t) {
        this.timers.delete(id);
        x.fn();
      }
  }
}

function changed(conn: RelayConnection, check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (check()) return resolve();
    const sub = conn.onDidChange(() => check() && (sub.dispose(), resolve()));
  });
}

describe("editor forwarding: the forwarding rules through the editor's engine", function () {
  this.timeout(60_000);
  let relay: RelayServer;
  let app: TargetApp;
  const open: RelayConnection[] = [];
  afterEach(async () => {
    for (const c of open.splice(0)) await c.close();
    await relay.close();
    await app.close();
  });

  it('a 400 and a 500 do not hold back the next delivery; rows show → 400 and → 500 · retrying; Retry Now delivers it', async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir(), secrets: [SECRET], forward: [] });
    app = await startTarget();
    app.statusFor = (r, all) =>
      r.body.toString() === '{"n":1}' ? 400 : r.body.toString() === '{"n":2}' && all.filter((x) => x.body.equals(r.body)).length === 1 ? 500 : 200;
    const stored = new Map<string, unknown>();
    const store = { get: (k: string) => stored.get(k), set: (k: string, v: unknown) => void stored.set(k, structuredClone(v)) };
    const key = seqKey(`http://127.0.0.1:${relay.port}`);
    const clock = new ManualClock();
    const handled: [number, object][] = [];
    const forwarder = new EditorForwarder({ client, targetFor: () => app.url, store, key, clock, onHandled: (seq, r) => handled.push([seq, r]) });
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
    for (const n of [1, 2, 3]) {
      const body = `{"n":${n}}`;
      await (
        await request(`${relay.url}/hooks/default`, { method: 'POST', headers: { 'x-service-event': 'push', ...signed(SECRET, body) }, body })
      ).body.dump();
    }
    const row = (seq: number) => (conn.live.get(seq) ? forwardSummary(conn.live.get(seq)!) : undefined);
    await changed(conn, () => row(1) === '→ 400 (subscriber)' && row(2) === '→ 500 · retrying (subscriber)' && row(3) === '→ 200 (subscriber)');
    assert.deepEqual(handled, [
      [1, { status: 400, final: true }],
      [2, { status: 500, retrying: true }],
      [3, { status: 200 }],
    ]);
    assert.deepEqual(
      forwarder.retrying().map((r) => [r.seq, r.attempts, r.lastStatus, r.inMs]),
      [[2, 1, 500, 60_000]],
      'retrying in 1 min',
    );
    assert.deepEqual(
      (stored.get(`${key}#retrying`) as { seq: number }[]).map((r) => r.seq),
      [2],
      'kept for a restart',
    );
    assert.equal(stored.get(key), 3);

    // A restarted editor finds it again; this one retries it now.
    const again = new EditorForwarder({ client, targetFor: () => app.url, store, key, clock: new ManualClock() });
    assert.deepEqual(
      again.retrying().map((r) => r.seq),
      [2],
    );
    assert.equal(again.since, 1, 'its subscription starts before the retrying delivery');
    again.stop();

    assert.equal(forwarder.retryNow(2), true);
    clock.advance(0);
    await changed(conn, () => row(2) === '→ 200 (subscriber)');
    assert.deepEqual(forwarder.retrying(), []);
    assert.equal(app.received.filter((r) => r.body.toString() === '{"n":1}').length, 1, 'the 400 was tried once');
    assert.equal(forwarder.skip(2), false, 'nothing left to skip');
    forwarder.stop();
  });
});
