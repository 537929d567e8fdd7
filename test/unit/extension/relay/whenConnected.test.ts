// The bounded wait commands make while the relay in use reconnects (src/extension/relay/whenConnected.ts):
// it ends when the connection is back, when it ends in another state, or at its limit, and it
// waits for the connection changes queued before it (a re-open runs after a restore).
import { strict as assert } from 'node:assert';
import type { RelayState } from '../../../../src/core/tree';
import { isConnecting, whenConnected, type ConnectionWatch } from '../../../../src/extension/relay/whenConnected';

/** A relay manager's state, its change event and its queue of connection changes, driven by the test. */
class Relay implements ConnectionWatch {
  state: RelayState = 'connecting';
  changing = false;
  listeners = new Set<() => void>();
  private release: () => void = () => undefined;
  private queue: Promise<void> = Promise.resolve();

  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }
  settled(): Promise<void> {
    return this.queue;
  }
  /** A connection change that runs until finishChange(). */
  startChange(): void {
    this.changing = true;
    this.queue = new Promise((resolve) => (this.release = resolve));
  }
  finishChange(): void {
    this.changing = false;
    this.release();
  }
  set(state: RelayState): void {
    this.state = state;
    for (const l of [...this.listeners]) l();
  }
}

describe('whenConnected: the wait for a reconnecting relay', () => {
  it('resolves running when the reconnect succeeds, and lets go of its listener', async () => {
    const relay = new Relay();
    const waited = whenConnected(relay, 60_000);
    await Promise.resolve();
    relay.set('running');
    assert.equal(await waited, 'running');
    assert.equal(relay.listeners.size, 0);
  });

  it('resolves down when the connection ends offline instead', async () => {
    const relay = new Relay();
    const waited = whenConnected(relay, 60_000);
    relay.set('offline');
    assert.equal(await waited, 'down');
  });

  it('is bounded: timeout while the relay stays connecting', async () => {
    const relay = new Relay();
    assert.equal(await whenConnected(relay, 20), 'timeout');
    assert.equal(relay.listeners.size, 0);
  });

  it('waits for a queued re-open: running before it ends does not count', async () => {
    const relay = new Relay();
    relay.state = 'running';
    relay.startChange(); // a restore or re-open in the queue: the old connection goes first
    let result: string | undefined;
    const waited = whenConnected(relay, 60_000).then((r) => (result = r));
    relay.set('running');
    await new Promise((r) => setImmediate(r));
    assert.equal(result, undefined, 'resolved while a connection change was still queued');
    relay.set('connecting');
    relay.finishChange();
    await new Promise((r) => setImmediate(r));
    assert.equal(result, undefined, 'resolved while the re-opened connection was still connecting');
    relay.set('running');
    assert.equal(await waited, 'running');
  });

  it('isConnecting: a reconnect, a start, or a queued change; not a connected or stopped relay', () => {
    assert.equal(isConnecting({ state: 'connecting', changing: false }), true);
    assert.equal(isConnecting({ state: 'starting', changing: false }), true);
    assert.equal(isConnecting({ state: 'running', changing: true }), true);
    assert.equal(isConnecting({ state: 'running', changing: false }), false);
    assert.equal(isConnecting({ state: 'stopped', changing: false }), false);
  });
});
