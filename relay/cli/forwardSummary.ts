// The one line `service-hooks forward` prints when it stops (issue 38 item 6): what it posted and
// how the apps answered, what is still being retried, and what the filter left out.
//   forward: 12 posted, 9 2xx, 1 refused, 2 retrying, 5 skipped by the filter
import type { ForwardEvent } from '../client/forwardEngine';

export class ForwardTally {
  /** Requests made to apps (each attempt, replays too). */
  posted = 0;
  ok = 0;
  /** Answered with a final 4xx, or given up after the last retry. */
  refused = 0;
  skippedByFilter = 0;

  add(e: ForwardEvent): void {
    switch (e.kind) {
      case 'delivered':
        this.posted++;
        this.ok++;
        return;
      case 'final':
      case 'failed':
        this.posted++;
        this.refused++;
        return;
      case 'retrying':
        this.posted++;
        return;
      case 'replayed':
        this.posted++;
        if (e.status !== undefined && e.status >= 200 && e.status <= 299) this.ok++;
        return;
      case 'skipped':
        if (e.filter) this.skippedByFilter++;
        return;
      default:
        return;
    }
  }

  /** The summary line; `retrying`: the deliveries still waiting for an attempt at the stop; `said`: who says it (`forward: channel dev:`). */
  line(retrying: number, said = 'forward:'): string {
    return `${said} ${this.posted} posted, ${this.ok} 2xx, ${this.refused} refused, ${retrying} retrying, ${this.skippedByFilter} skipped by the filter`;
  }
}
