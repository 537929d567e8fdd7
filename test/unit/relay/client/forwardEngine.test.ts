// The forward loop the CLI and the editor share (relay/client/forwardEngine.ts), driven directly
// with deliveries, a real app on 127.0.0.1 and an injected clock: the retry schedule and
// Retry-After are checked by moving the clock, never by waiting.
import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { ForwardEngine, type EngineClock, type ForwardCursor, type ForwardEvent } from '../../../../relay/client/forwardEngine';
import type { DeliveryMessage } from '../../../../src/core/relay/protocol';
import { startTarget, type TargetApp } from '../support/helpers';
import { Signal } from '../../../support/until';

type Delivery = DeliveryMessage['delivery'];

/** A clock whose timers run only when the test moves it. */
class ManualClock implements EngineClock {
  private t = Date.parse('2026-11-25T12:00:00Z');
  private timers = new Map<number, { at: number; fn: () => void }>();
  private next = 1;
  now = () => this.t;
  setTimeout = (fn: () => void, ms: number) => {
    const id = this.next++;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  };
  clearTimeout = (h: unknown) => void this.timers.delete(h as number);
  /** Moves the clock by `ms`, running the timers that come due, in order. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, x]) => x.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.t = Math.max(this.t, due[1].at);
      due[1].fn();
    }
    this.t = end;
  }
}

function delivery(seq: number, body: string, event = 'push'): Delivery {
  return {
    seq,
    channel: 'dev',
    receivedAt: new Date().toISOString(),
    verification: 'verified',
    event,
    size: body.length,
    forward: [],
    headers: { 'content-type': 'application/json', 'x-service-event': event },
    bodyBase64: Buffer.from(body).toString('base64'),
  };
}

function memoryCursor(initial?: ForwardCursor) {
  let saved = initial;
  return { load: () => saved, save: (c: ForwardCursor) => void (saved = structuredClone(c)), get: () => saved };
}

/** Resolves once an event of `kind` (for `seq`) was emitted. */
function eventsOf(list: ForwardEvent[]) {
  const emitted = new Signal();
  return {
    push: (e: ForwardEvent) => (list.push(e), emitted.wake()),
    when: (pred: (e: ForwardEvent) => boolean) => emitted.until(() => list.find(pred)),
  };
}

describe('ForwardEngine (the forward loop of forward and the editor)', function () {
  let app: TargetApp;
  beforeEach(async () => (app = await startTarget()));
  afterEach(() => app.close());

  it('a 400 is final and a 500 retries later: the next delivery is not held back; the retry goes at 1 min', async () => {
    app.statusFor = (r, all) =>
      r.body.toString() === '{"n":1}' ? 400 : r.body.toString() === '{"n":2}' && all.filter((x) => x.body.equals(r.body)).length === 1 ? 500 : 200;
    const clock = new ManualClock();
    const list: ForwardEvent[] = [];
    const ev = eventsOf(list);
    const reports: [number, { status: number; state: string }][] = [];
    const cursor = memoryCursor();
    const engine = new ForwardEngine({ target: () => app.url, cursor, clock, onEvent: ev.push, report: (seq, r) => reports.push([seq, r]) });
    engine.opened(0);
    assert.deepEqual(await engine.handle(delivery(1, '{"n":1}')), { forwarded: { status: 400 } });
    assert.deepEqual(await engine.handle(delivery(2, '{"n":2}')), { forwarded: { status: 500 } });
    assert.deepEqual(await engine.handle(delivery(3, '{"n":3}')), { forwarded: { status: 200 } });
    assert.deepEqual(
      list.map((e) => e.kind),
      ['final', 'retrying', 'delivered'],
    );
    assert.deepEqual(
      engine.retrying().map((r) => [r.seq, r.attempts, r.lastStatus, r.inMs]),
      [[2, 1, 500, 60_000]],
    );
    assert.equal(app.received.length, 3, 'the 400 was tried once');
    await engine.flushed();
    assert.deepEqual(cursor.get(), {
      lastSeq: 3,
      retrying: [{ seq: 2, channel: 'dev', event: 'push', attempts: 1, nextAt: clock.now() + 60_000, lastStatus: 500, lastError: undefined }],
    });

    clock.advance(59_999);
    assert.equal(app.received.length, 3, 'not before its time');
    clock.advance(1);
    await ev.when((e) => e.kind === 'delivered' && e.seq === 2);
    assert.deepEqual(engine.retrying(), []);
    assert.deepEqual(reports, [[2, { status: 200, state: 'ok' }]], 'the later 200 is told to the relay');
    engine.stop();
  });

  it("Retry-After replaces the schedule's wait (429 with Retry-After: 7 → retried at 7 s)", async () => {
    let answers = 0;
    const limited = createServer((req, res) => {
      req.resume();
      req.on('end', () => (answers++ === 0 ? res.writeHead(429, { 'retry-after': '7' }).end() : res.writeHead(200).end()));
    });
    limited.listen(0, '127.0.0.1');
    await once(limited, 'listening');
    const clock = new ManualClock();
    const list: ForwardEvent[] = [];
    const ev = eventsOf(list);
    const url = `http://127.0.0.1:${(limited.address() as { port: number }).port}/hook`;
    const engine = new ForwardEngine({ target: () => url, cursor: memoryCursor({ lastSeq: 0, retrying: [] }), clock, onEvent: ev.push });
    try {
      await engine.handle(delivery(1, '{"rate":"limited"}'));
      assert.deepEqual(
        list.map((e) => [e.kind, (e as { inMs?: number }).inMs]),
        [['retrying', 7000]],
      );
      clock.advance(6_999);
      assert.equal(answers, 1);
      clock.advance(1);
      await ev.when((e) => e.kind === 'delivered');
      assert.equal(answers, 2);
    } finally {
      engine.stop();
      limited.closeAllConnections();
      limited.close();
    }
  });

  it('a delivery the relay sent without its body (a damaged record) is skipped and acknowledged, and the next one forwarded', async () => {
    const list: ForwardEvent[] = [];
    const ev = eventsOf(list);
    const cursor = memoryCursor({ lastSeq: 0, retrying: [] });
    const engine = new ForwardEngine({ target: () => app.url, cursor, clock: new ManualClock(), onEvent: ev.push });
    try {
      const { headers: _h, bodyBase64: _b, ...bodiless } = delivery(1, '{"damaged":true}');
      assert.equal(await engine.handle(bodiless), undefined, 'acknowledged: a reconnect would be sent it again');
      assert.equal(engine.lastSeq, 1);
      await engine.handle(delivery(2, '{"n":2}'));
      assert.deepEqual(
        list.map((e) => [e.kind, e.kind === 'skipped' || e.kind === 'delivered' ? e.seq : undefined]),
        [
          ['skipped', 1],
          ['delivered', 2],
        ],
      );
      assert.match((list[0] as { reason: string }).reason, /cannot read its body/);
      assert.deepEqual(
        app.received.map((r) => r.body.toString()),
        ['{"n":2}'],
      );
    } finally {
      engine.stop();
    }
  });

  it('gives up after the schedule; Skip and Retry Now act on one delivery', async () => {
    app.status = 503;
    const clock = new ManualClock();
    const list: ForwardEvent[] = [];
    const ev = eventsOf(list);
    const reports: [number, { status: number; state: string }][] = [];
    const engine = new ForwardEngine({
      target: () => app.url,
      cursor: memoryCursor({ lastSeq: 0, retrying: [] }),
      clock,
      schedule: [0, 10, 10],
      onEvent: ev.push,
      report: (seq, r) => reports.push([seq, r]),
    });
    await engine.handle(delivery(1, '{"a":1}'));
    await engine.handle(delivery(2, '{"b":2}'));
    assert.equal(engine.retryNow(1), 1);
    clock.advance(0);
    await ev.when((e) => e.kind === 'retrying' && e.seq === 1 && e.attempts === 2);
    clock.advance(10);
    await ev.when((e) => e.kind === 'failed' && e.seq === 1);
    assert.ok(
      reports.some(([seq, r]) => seq === 1 && r.status === 503 && r.state === 'failed'),
      'the relay is told it failed',
    );
    assert.equal(engine.skip(2), true);
    assert.deepEqual(engine.retrying(), []);
    assert.deepEqual(reports.at(-1), [2, { status: 503, state: 'failed' }]);
    assert.equal(app.received.filter((r) => r.body.toString() === '{"a":1}').length, 3, 'three attempts: the schedule');
    engine.stop();
  });

  it('an unreachable app pauses the stream in order until the probe finds it', async () => {
    const clock = new ManualClock();
    const list: ForwardEvent[] = [];
    const ev = eventsOf(list);
    let up = false;
    const probes: boolean[] = [];
    const engine = new ForwardEngine({
      target: () => 'http://127.0.0.1:1/hook',
      cursor: memoryCursor({ lastSeq: 0, retrying: [] }),
      clock,
      onEvent: ev.push,
      attempt: async () =>
        up ? { ok: true, status: 204, durationMs: 1 } : { ok: false, error: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:1', durationMs: 1 },
      probe: async () => (probes.push(up), up),
    });
    const handled = engine.handle(delivery(1, '{}'));
    await ev.when((e) => e.kind === 'paused');
    clock.advance(200);
    await new Promise<void>((r) => setImmediate(r));
    assert.deepEqual(probes, [false], 'still down: one probe, nothing acknowledged');
    up = true;
    clock.advance(200);
    assert.deepEqual(await handled, { forwarded: { status: 204 } });
    assert.deepEqual(
      list.map((e) => e.kind),
      ['paused', 'resumed', 'delivered'],
    );
    engine.stop();
  });

  it('after a restart: starts before the oldest retrying delivery, keeps it for its time, and does not forward those already handled', async () => {
    const clock = new ManualClock();
    const list: ForwardEvent[] = [];
    const ev = eventsOf(list);
    const cursor = memoryCursor({ lastSeq: 5, retrying: [{ seq: 3, channel: 'dev', attempts: 1, nextAt: clock.now() + 1000, lastStatus: 500 }] });
    const engine = new ForwardEngine({ target: () => app.url, cursor, clock, onEvent: ev.push });
    assert.equal(engine.since, 2, 'the relay sends seq 3 again');
    await engine.handle(delivery(3, '{"n":3}'));
    await engine.handle(delivery(4, '{"n":4}'));
    await engine.handle(delivery(5, '{"n":5}'));
    await engine.handle(delivery(6, '{"n":6}'));
    assert.deepEqual(
      app.received.map((r) => r.body.toString()),
      ['{"n":6}'],
      'seq 4 and 5 were handled before the restart; 3 waits for its time',
    );
    clock.advance(1000);
    await ev.when((e) => e.kind === 'delivered' && e.seq === 3);
    assert.deepEqual(
      app.received.map((r) => r.body.toString()),
      ['{"n":6}', '{"n":3}'],
    );
    await engine.flushed();
    assert.deepEqual(cursor.get(), { lastSeq: 6, retrying: [] });
    engine.stop();
  });

  // Issue 24 (the public path): each delivery waited for its cursor write (two fsyncs) before the
  // next could go, so the stream's pace was the disk's, and at c=1 the deliveries queued behind it.
  it('the cursor write does not hold back the next delivery, and the writes asked meanwhile become one', async () => {
    const order: string[] = [];
    const saves: ForwardCursor[] = [];
    const held: (() => void)[] = [];
    let wrote = () => {};
    const writeStarted = () => new Promise<void>((r) => (wrote = r));
    const cursor = {
      load: () => ({ lastSeq: 0, retrying: [] }),
      // A write finishes when the test lets it.
      save: (c: ForwardCursor) => {
        saves.push(structuredClone(c));
        order.push(`write ${c.lastSeq}`);
        const done = new Promise<void>((resolve) => held.push(() => (order.push(`written ${c.lastSeq}`), resolve())));
        wrote();
        return done;
      },
    };
    const engine = new ForwardEngine({ target: () => app.url, cursor, clock: new ManualClock() });
    const started = writeStarted();
    const first = engine.handle(delivery(1, '{"n":1}')).then((r) => (order.push('handled 1'), r));
    await started;
    await new Promise<void>((r) => setImmediate(r)); // a turn for the handler to go on, if it does not wait for the write
    held.shift()!();
    assert.deepEqual(await first, { forwarded: { status: 200 } });
    assert.deepEqual(order, ['write 1', 'handled 1', 'written 1'], 'the handler resolved while its cursor write was still running');
    await engine.flushed();

    // Deliveries with nowhere to go (a rejected one is skipped) advance the resume point at once:
    // three of them during one write give one more write, of the last state.
    saves.length = 0;
    const skipped = (seq: number) => ({ ...delivery(seq, '{}'), verification: 'rejected' as const });
    await engine.handle(skipped(2));
    await engine.handle(skipped(3));
    await engine.handle(skipped(4));
    assert.deepEqual(
      saves.map((c) => c.lastSeq),
      [2],
      'one write in flight; the asks of 3 and 4 wait for it',
    );
    const second = writeStarted();
    held.shift()!();
    await second;
    held.shift()!();
    await engine.flushed();
    assert.deepEqual(
      saves.map((c) => c.lastSeq),
      [2, 4],
      'the asks made during a write are folded into one write of the state when it starts',
    );
    assert.equal(engine.lastSeq, 4);
    engine.stop();
  });

  it('saveSpacingMs: at most one cursor write per spacing, of the state when it starts; stop() does not wait for it', async () => {
    const clock = new ManualClock();
    const saves: (number | undefined)[] = [];
    let wrote = () => {};
    const cursor = { load: () => ({ lastSeq: 0, retrying: [] }), save: (c: ForwardCursor) => void (saves.push(c.lastSeq), wrote()) };
    const engine = new ForwardEngine({ target: () => app.url, cursor, clock, saveSpacingMs: 50 });
    const skipped = (seq: number) => ({ ...delivery(seq, '{}'), verification: 'rejected' as const });
    await engine.handle(skipped(1));
    await engine.flushed();
    assert.deepEqual(saves, [1], 'the first write goes at once');
    for (const seq of [2, 3, 4]) await engine.handle(skipped(seq));
    await new Promise<void>((r) => setImmediate(r)); // a turn for a write that does not wait, if it does not
    assert.deepEqual(saves, [1], 'the next write waits for the spacing');
    clock.advance(49);
    await new Promise<void>((r) => setImmediate(r));
    assert.deepEqual(saves, [1], 'still 1 ms to go');
    const next = new Promise<void>((r) => (wrote = r));
    clock.advance(1);
    await next;
    assert.deepEqual(saves, [1, 4], 'one write, of the state when it started');

    await engine.handle(skipped(5));
    engine.stop();
    await engine.flushed();
    assert.deepEqual(saves, [1, 4, 5], 'stop() wrote the last state without waiting for the clock');
  });

  it('stop() while paused: the waiting delivery is not acknowledged', async () => {
    const engine = new ForwardEngine({
      target: () => 'http://127.0.0.1:1/hook',
      cursor: memoryCursor({ lastSeq: 0, retrying: [] }),
      clock: new ManualClock(),
      attempt: async () => ({ ok: false, error: 'ECONNREFUSED: refused', durationMs: 1 }),
      probe: async () => false,
    });
    const handled = engine.handle(delivery(1, '{}'));
    await new Promise<void>((r) => setImmediate(r));
    engine.stop();
    await assert.rejects(handled, /forwarding stopped/);
    assert.equal(engine.lastSeq, 0);
  });

  it('deliveries handled at once (forward --parallel): the resume point moves only over those whose older ones are done', async () => {
    const answer = new Map<number, (status: number) => void>();
    const posted = new Set<number>();
    const wakers = new Set<() => void>();
    const whenPosted = (seq: number) =>
      new Promise<void>((r) => {
        const check = () => posted.has(seq) && (wakers.delete(check), r());
        wakers.add(check);
        check();
      });
    const cursor = memoryCursor({ lastSeq: 0, retrying: [] });
    const engine = new ForwardEngine({
      target: () => app.url,
      cursor,
      attempt: (d) =>
        new Promise((resolve) => {
          answer.set(d.seq, (status) => resolve({ ok: status < 300, status, durationMs: 1 }));
          posted.add(d.seq);
          [...wakers].forEach((w) => w());
        }),
    });
    const handled = [1, 2, 3, 4].map((seq) => engine.handle(delivery(seq, `{"n":${seq}}`)));
    for (const seq of [1, 2, 3, 4]) await whenPosted(seq);
    answer.get(1)!(200);
    answer.get(3)!(200);
    answer.get(4)!(500);
    await Promise.all([handled[0], handled[2], handled[3]]);
    await engine.flushed();
    assert.equal(engine.lastSeq, 1, '2 is still at the app');
    assert.equal(cursor.get()?.lastSeq, 1, 'the kept resume point too: a crash now posts 2, 3 and 4 again');
    assert.deepEqual(
      cursor.get()?.retrying.map((r) => r.seq),
      [4],
    );
    answer.get(2)!(200);
    await handled[1];
    await engine.flushed();
    assert.equal(engine.lastSeq, 4);
    assert.equal(cursor.get()?.lastSeq, 4);
    engine.stop();
  });
});
