// The Webhooks view's live refresh loop, stepped through time with fake timers (no sleeping).
import { strict as assert } from 'node:assert';
import { MAX_REFRESH_BACKOFF_MS, RefreshLoop, nextDelay, type Timers } from '../../../../src/core/tree';

class FakeTimers implements Timers {
  pending = new Map<number, { fn: () => void; ms: number }>();
  private next = 1;
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.pending.set(id, { fn, ms });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.pending.delete(h as number);
  }
  /** The one pending delay (the loop keeps at most one timer). */
  get delay(): number | undefined {
    assert.ok(this.pending.size <= 1, `${this.pending.size} timers pending`);
    return [...this.pending.values()][0]?.ms;
  }
}

describe('Webhooks view refresh loop', () => {
  it('ticks every interval while visible, not while hidden, not at 0', async () => {
    const timers = new FakeTimers();
    let ticks = 0;
    const loop = new RefreshLoop(async () => (ticks++, { ok: true }), 10, timers);
    assert.equal(timers.delay, undefined, 'nothing scheduled before the view is visible');
    loop.setVisible(true);
    assert.equal(timers.delay, 10_000);
    const [[, t]] = [...timers.pending.entries()];
    timers.pending.clear();
    t!.fn();
    await loop.idle();
    assert.equal(ticks, 1);
    assert.equal(timers.delay, 10_000, 'the next tick is scheduled after the first');
    loop.setVisible(false);
    assert.equal(timers.delay, undefined, 'hidden: paused');
    loop.setVisible(true);
    loop.setInterval(0);
    assert.equal(timers.delay, undefined, '0 turns it off');
    loop.setInterval(3);
    assert.equal(timers.delay, 3_000);
    loop.dispose();
    assert.equal(timers.delay, undefined);
  });

  it('with no back-off (the Webhooks view: recover within one interval) a failure waits the interval, and still counts', async () => {
    const timers = new FakeTimers();
    const loop = new RefreshLoop(async () => ({ ok: false }), 10, timers, 0);
    loop.setVisible(true);
    for (let i = 0; i < 3; i++) await loop.runNow();
    assert.equal(timers.delay, 10_000);
    assert.equal(loop.failureCount, 3);
    loop.dispose();
  });

  it('backs off after failures (doubling, capped) and returns to the interval after a success', async () => {
    const timers = new FakeTimers();
    const results = [false, false, false, true];
    const loop = new RefreshLoop(
      async () => {
        const ok = results.shift();
        if (ok === undefined) throw new Error('no more');
        return { ok };
      },
      10,
      timers,
    );
    loop.setVisible(true);
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      await loop.runNow();
      delays.push(timers.delay!);
    }
    assert.deepEqual(delays, [20_000, 40_000, 80_000, 10_000, 20_000], 'a thrown tick counts as a failure too');
    assert.equal(nextDelay(10_000, 20), MAX_REFRESH_BACKOFF_MS);
    assert.equal(nextDelay(600_000, 3), 600_000, 'never shorter than the interval');
  });

  it('runNow while a tick runs joins it: ticks never overlap', async () => {
    let release!: () => void;
    let running = 0;
    let most = 0;
    const loop = new RefreshLoop(
      async () => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((r) => (release = r));
        running--;
        return { ok: true };
      },
      10,
      new FakeTimers(),
    );
    const a = loop.runNow();
    const b = loop.runNow();
    release();
    await Promise.all([a, b]);
    assert.equal(most, 1);
  });
});
