// Forwarding in the editor (Connect to Relay): each delivery of the subscription goes byte-exact to
// the local app with relay/client's forwardDelivery, the code `service-hooks forward` uses, and is
// acknowledged only after a 2xx; until then it is retried with the same backoff. The last handled
// seq is kept per relay and channel (the extension's globalState), so a restart resumes there.
import type { DeliveryHandled } from '../../../relay/client';
import type { RelayClientModule, RelayDeliveryMessage } from './connection';

export interface SeqStore {
  get(key: string): number | undefined;
  set(key: string, seq: number): void | Thenable<void>;
}

export interface ForwardingOptions {
  client: RelayClientModule;
  /** Where a delivery of `channel` goes; undefined: not forwarded (acknowledged as handled). */
  targetFor: (channel: string) => string | undefined;
  store: SeqStore;
  /** seqKey(relay, channel filter) */
  key: string;
  /** Told when forwarding starts failing (a sentence) and when it recovers (undefined). */
  onProblem?: (problem: string | undefined) => void;
  /** Told after each delivery was forwarded (2xx) or skipped. */
  onHandled?: (seq: number, result: { status?: number; skipped?: string }) => void;
  log?: (line: string) => void;
  timeoutMs?: number;
  backoff?: { initialMs?: number; maxMs?: number };
}

export class EditorForwarder {
  private stopped = false;
  private wake: (() => void) | undefined;
  forwarded = 0;

  constructor(private readonly o: ForwardingOptions) {}

  /** The stored resume point (undefined: never connected to this relay and channel). */
  get since(): number | undefined {
    return this.o.store.get(this.o.key);
  }

  /** The relay's head when the first subscription opens: new deliveries only, and a restart resumes there. */
  remember(relayLastSeq: number): void {
    if (this.since === undefined) void this.o.store.set(this.o.key, relayLastSeq);
  }

  /**
   * The subscription's handler: resolves once the app answered 2xx (then the delivery is acked, with
   * that status, which the relay records under its 'subscriber' target), or once it is skipped.
   */
  handle = async (d: RelayDeliveryMessage): Promise<DeliveryHandled> => {
    const to = this.o.targetFor(d.channel);
    if (d.verification === 'rejected' || !to) {
      const skipped = d.verification === 'rejected' ? `rejected: ${d.reason ?? 'bad signature'}` : 'no forward URL for this channel';
      this.o.log?.(`#${d.seq} ${d.channel} skipped (${skipped})`);
      await this.done(d.seq, { skipped });
      return;
    }
    for (let attempt = 1; ; attempt++) {
      if (this.stopped) throw new Error('forwarding stopped');
      const r = await this.o.client.forwardDelivery(d, to, { timeoutMs: this.o.timeoutMs ?? 10_000 });
      this.o.log?.(`#${d.seq} ${d.channel} ${d.event ?? '-'} → ${r.ok ? r.status : `failed (${r.error})`} ${r.durationMs.toFixed(1)} ms`);
      if (r.ok) {
        if (attempt > 1) this.o.onProblem?.(undefined);
        this.forwarded++;
        await this.done(d.seq, { status: r.status });
        return r.status === undefined ? undefined : { forwarded: { status: r.status } };
      }
      this.o.onProblem?.(`delivery #${d.seq} to ${to}: ${r.error ?? `HTTP ${r.status}`}`);
      await this.pause(backoffMs(attempt, this.o.backoff));
    }
  };

  private async done(seq: number, result: { status?: number; skipped?: string }): Promise<void> {
    await this.o.store.set(this.o.key, seq);
    this.o.onHandled?.(seq, result);
  }

  private async pause(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done(): void {
        clearTimeout(t);
        resolve();
      }
      this.wake = done;
    });
    this.wake = undefined;
  }

  /** Try the waiting delivery now instead of after its backoff; false when none was waiting. */
  retryNow(): boolean {
    const wake = this.wake;
    wake?.();
    return wake !== undefined;
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }
}

/** The `forward` command's backoff: 250 ms doubling, at most 30 s. */
export function backoffMs(attempt: number, o: { initialMs?: number; maxMs?: number } = {}): number {
  return Math.min(o.maxMs ?? 30_000, (o.initialMs ?? 250) * 2 ** Math.min(attempt, 7));
}
