// Waiting without sleeping, for tests and benches alike: a condition re-checked on the events that
// can change it, never on a timer (one home: issue 37 item 3).

/**
 * Resolves with `check()`'s first value that is not undefined, checked now and again each time
 * `subscribe`'s wake is called; `subscribe` returns how to stop listening.
 */
export function until<T>(check: () => T | undefined, subscribe: (wake: () => void) => () => void): Promise<T> {
  return new Promise((resolve) => {
    const v = check();
    if (v !== undefined) return resolve(v);
    const off = subscribe(() => {
      const r = check();
      if (r !== undefined) {
        off();
        resolve(r);
      }
    });
  });
}

/**
 * A wake-up point for state that callbacks change: call `wake()` after each change, and
 * `until(check)` resolves with check()'s first value that is neither undefined nor false
 * (bounded: it gives up after `limit` wakes, naming `what`).
 */
export class Signal {
  private waiters: (() => void)[] = [];

  wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  async until<T>(check: () => T | undefined | false, what = 'a condition', limit = 10_000): Promise<T> {
    for (let i = 0; i < limit; i++) {
      const v = check();
      if (v !== undefined && v !== false) return v;
      await new Promise<void>((r) => this.waiters.push(r));
    }
    throw new Error(`gave up waiting for ${what}`);
  }
}
