// While the file journal's index is built (issue 40): the ingress journals deliveries (their seqs
// follow the journal's last) but nothing forwards them or hands them to subscribers yet: they are
// forwarded once the index holds them, by the forwarder's resume() like any pending delivery. The
// gate opens after every delivery accepted meanwhile is durable (so indexed, and seen by resume),
// in the same tick as resume() runs: each delivery is forwarded once, by one of the two ways.
import type { Forwarder } from './forwarding/forwarder';

type Deliver = Pick<Forwarder, 'deliver'>;
type Hold = { hold(seq: number, headers: [string, string][], body: Buffer): void };

export class LoadGate {
  private loadingNow: boolean;
  private readonly durables = new Set<Promise<unknown>>();

  constructor(private readonly loading: Promise<void> | undefined) {
    this.loadingNow = loading !== undefined;
  }

  /** True until open() has run its callback. */
  get isLoading(): boolean {
    return this.loadingNow;
  }

  /** The forwarder as the ingress sees it: while loading, deliveries are only awaited. */
  forwarder(forwarding: Deliver): Deliver {
    return {
      deliver: (seq, targets, body, pairs, durable) => {
        if (!this.loadingNow) return forwarding.deliver(seq, targets, body, pairs, durable);
        const forget = (): void => void this.durables.delete(settled);
        const settled: Promise<void> = durable.then(forget, forget);
        this.durables.add(settled);
      },
    };
  }

  /** The subscribers as the ingress sees them: none while loading (none can connect then). */
  subscribers(hub: Hold): Hold {
    return { hold: (seq, headers, body) => (this.loadingNow ? undefined : hub.hold(seq, headers, body)) };
  }

  /** Awaits the load and the deliveries accepted during it, then, in one tick, opens and calls `then`. */
  async open(then: () => void): Promise<void> {
    await this.loading;
    while (this.durables.size > 0) await Promise.all([...this.durables]);
    this.loadingNow = false;
    then();
  }
}
