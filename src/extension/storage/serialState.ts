// The extension's globalState, written one update at a time. VS Code's Memento keeps the extension's
// whole state as one object, sends all of it on each write, and takes the copy the workbench echoes
// back for each write as the new whole object. An echo of an earlier write that arrives after a
// later update() replaces that update in memory, and the next flush stores the state without it (a
// Stop Forwarding whose set-up removal met the forwarder saving a resume point kept its set-up).
// With one write out at a time, every echo is of the write out and holds every value before it.
// Reads see the newest value given, queued or written. (Another window's writes are echoed too;
// the relay's forwarding lease keeps one window writing the forwarding state.)
import type * as vscode from 'vscode';

interface Queued {
  value: unknown;
  /** The update() promise of this value and of every later one of its key queued before it started. */
  written: Promise<void>;
  started: boolean;
}

export class SerialState implements vscode.Memento {
  /** The newest value of each key not yet written to the Memento (written, or still to start). */
  private readonly queued = new Map<string, Queued>();
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly inner: vscode.Memento) {}

  keys(): readonly string[] {
    const keys = new Set(this.inner.keys());
    for (const [key, q] of this.queued) {
      if (q.value === undefined) keys.delete(key);
      else keys.add(key);
    }
    return [...keys];
  }

  get<T>(key: string): T | undefined;
  get<T>(key: string, defaultValue: T): T;
  get<T>(key: string, defaultValue?: T): T | undefined {
    const q = this.queued.get(key);
    const value = q ? (q.value as T | undefined) : this.inner.get<T>(key);
    return value === undefined ? defaultValue : value;
  }

  update(key: string, value: unknown): Promise<void> {
    const copy = value !== null && typeof value === 'object' ? JSON.parse(JSON.stringify(value)) : value; // as the Memento stores it
    const waiting = this.queued.get(key);
    if (waiting && !waiting.started) {
      waiting.value = copy; // not sent yet: it goes with the newest value
      return waiting.written;
    }
    const q: Queued = { value: copy, started: false, written: Promise.resolve() };
    q.written = this.tail.then(async () => {
      q.started = true;
      try {
        await this.inner.update(key, q.value);
      } finally {
        if (this.queued.get(key) === q) this.queued.delete(key);
      }
    });
    this.queued.set(key, q);
    this.tail = q.written.catch(() => undefined);
    return q.written;
  }
}
