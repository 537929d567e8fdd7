// The addresses of one relay a subscription may connect to (`forward --relay A --relay B`): the
// instances of one store, or a load balancer and an instance behind it. The subscription keeps
// one at a time; when it is lost, the others are probed at once and the first that answers in
// turn after it is taken (no backoff: the store is the same, so the resume point is too). Only
// once every address was tried since a connection last opened does the subscription back off,
// while each address's port is watched so that the first to answer again is taken at once.
import { probePort, watchPort } from '../shared/probe';

/** How long a failover probe waits for an address's port (a dead host's SYN goes unanswered). */
export const FAILOVER_PROBE_MS = 1000;

export class RelayAddresses {
  private at = 0;
  /** Addresses tried since a connection last opened (their index). */
  private readonly tried = new Set<number>();
  /** Addresses whose last connection was refused at the port (ECONNREFUSED). */
  private readonly refused = new Set<number>();

  constructor(readonly list: readonly string[]) {
    if (list.length === 0) throw new RangeError('a subscription needs at least one relay address');
  }

  /** The address connected to, or being connected to. */
  get current(): string {
    return this.list[this.at]!;
  }

  /** A connection to the current address opened: every address may be tried at once again. */
  opened(): void {
    this.tried.clear();
    this.refused.delete(this.at);
  }

  /** The connection to the current address is lost (`code`: its socket error's, if any). */
  lost(code: string | undefined): void {
    this.tried.add(this.at);
    if (code === 'ECONNREFUSED') this.refused.add(this.at);
    else this.refused.delete(this.at);
  }

  /**
   * Another address not tried since the last open whose port answers now, the first in turn after
   * the current one (all are probed at once); it becomes current. Undefined: none (then wait()).
   */
  async failover(): Promise<string | undefined> {
    const n = this.list.length;
    const order = Array.from({ length: n - 1 }, (_, i) => (this.at + 1 + i) % n).filter((i) => !this.tried.has(i));
    if (order.length === 0) return undefined;
    const answers = await Promise.all(order.map((i) => probePort(this.list[i]!, FAILOVER_PROBE_MS)));
    const found = order.find((_, k) => answers[k]);
    if (found === undefined) {
      for (const i of order) {
        this.tried.add(i);
        this.refused.add(i);
      }
      return undefined;
    }
    this.at = found;
    return this.current;
  }

  /** The address a backoff's timer connects to: the next in turn. */
  rotate(): void {
    this.at = (this.at + 1) % this.list.length;
  }

  /**
   * Watches every address's port every `everyMs`; `back` is called (once) with the first that
   * answers after it did not, which becomes current. Returns the stop.
   */
  watch(everyMs: number, back: () => void): () => void {
    let done = false;
    const stops = this.list.map((url, i) =>
      watchPort(url, {
        everyMs,
        down: this.refused.has(i),
        back: () => {
          if (done) return;
          done = true;
          stopAll();
          this.at = i;
          back();
        },
      }),
    );
    const stopAll = () => stops.forEach((s) => s());
    return () => {
      done = true;
      stopAll();
    };
  }
}
