// VS Code's globalState as it behaves (code-server 4.100 / VS Code 1.100: extHostMemento.ts and
// mainThreadStorage.ts), with its messages and its flush timer driven one step at a time. The
// extension host's Memento keeps the extension's whole state as one object: update() sets the key
// in it and schedules a flush (a 0 ms timer) that sends the whole object; the workbench stores it
// and, before it answers, echoes the stored state back, which the Memento takes as its whole object.
import type * as vscode from 'vscode';

const clone = (v: unknown): unknown => (v !== null && typeof v === 'object' ? JSON.parse(JSON.stringify(v)) : v);

export class Workbench {
  /** The extension's state as the workbench stored it (what the next activation reads). */
  stored: Record<string, unknown> = {};
  private readonly toWorkbench: (() => void)[] = [];
  private readonly toHost: (() => void)[] = [];
  private readonly timers: (() => void)[] = [];
  private readonly hosts: HostMemento[] = [];

  memento(): HostMemento {
    const m = new HostMemento(this, clone(this.stored) as Record<string, unknown>);
    this.hosts.push(m);
    return m;
  }

  /** The extension host's Memento schedules its flush. */
  schedule(flush: () => void): void {
    this.timers.push(flush);
  }

  /** The extension host sends the whole state; `written` is the reply. */
  send(json: string, written: () => void): void {
    this.toWorkbench.push(() => {
      this.stored = JSON.parse(json) as Record<string, unknown>;
      for (const h of this.hosts) this.toHost.push(() => h.accept(json)); // the echo, before the reply
      this.toHost.push(written);
    });
  }

  /** The flush timers due now run. */
  async runTimers(): Promise<void> {
    await settled();
    for (const t of this.timers.splice(0)) t();
  }
  /** The workbench handles the messages it has. */
  async handle(): Promise<void> {
    await settled();
    for (const m of this.toWorkbench.splice(0)) m();
  }
  /** The extension host takes the next message the workbench sent (an echo or a reply). */
  async deliverOne(): Promise<void> {
    await settled();
    this.toHost.shift()?.();
    await settled();
  }
  /** Everything runs to the end, timers first (the order that loses nothing by itself). */
  async settle(): Promise<void> {
    for (;;) {
      await settled();
      if (this.timers.length) await this.runTimers();
      else if (this.toWorkbench.length) await this.handle();
      else if (this.toHost.length) await this.deliverOne();
      else return;
    }
  }
}

export class HostMemento implements vscode.Memento {
  private deferred = new Map<string, { resolve: () => void; promise: Promise<void> }>();
  private scheduled = false;

  constructor(
    private readonly workbench: Workbench,
    private value: Record<string, unknown>,
  ) {}

  keys(): readonly string[] {
    return Object.entries(this.value)
      .filter(([, v]) => v !== undefined)
      .map(([k]) => k);
  }

  get<T>(key: string): T | undefined;
  get<T>(key: string, defaultValue: T): T;
  get<T>(key: string, defaultValue?: T): T | undefined {
    const v = this.value[key] as T | undefined;
    return v === undefined ? defaultValue : v;
  }

  update(key: string, value: unknown): Promise<void> {
    this.value[key] = clone(value);
    const waiting = this.deferred.get(key);
    if (waiting) return waiting.promise;
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    this.deferred.set(key, { resolve, promise });
    if (!this.scheduled) {
      this.scheduled = true;
      this.workbench.schedule(() => this.flush());
    }
    return promise;
  }

  private flush(): void {
    this.scheduled = false;
    const records = this.deferred;
    this.deferred = new Map();
    this.workbench.send(JSON.stringify(this.value), () => {
      for (const r of records.values()) r.resolve();
    });
  }

  /** The workbench's echo: the extension's whole state, as stored. */
  accept(json: string): void {
    this.value = JSON.parse(json) as Record<string, unknown>;
  }
}

/** Lets every promise callback that can run, run (no time passes). */
function settled(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
