// Every refused request goes through one seam: counted under its reason (the metrics'
// relay_requests_rejected_total{reason}) and logged with its source address, at most one line per
// source and reason an interval (a flood from one address writes one line, then a count on the
// next). Ingress, the API, the WebSocket, the page's sign-in and /metrics all call refused().
// The line names what was refused and why, never what was presented (a wrong token is not shown).
import type { IncomingMessage } from 'node:http';
import { clientAddress, type SourceAllowList } from './access';
import type { RelayLog } from '../base/log';

/** Why a request was refused, as the metrics label it. */
export type RefusalReason = 'signature' | 'token' | 'host' | 'browser' | 'too-large' | 'rate-limit' | 'allow-list' | 'unknown-channel' | 'bad-request';

const WHY: Record<RefusalReason, string> = {
  signature: 'the signature did not verify',
  token: 'missing or wrong token',
  host: 'forbidden Host header (DNS rebinding?)',
  browser: "a browser's cross-site request",
  'too-large': 'the body is too large',
  'rate-limit': 'over the rate limit',
  'allow-list': 'not in the source allow-list',
  'unknown-channel': 'no such channel',
  'bad-request': 'a bad request',
};

/** Source/reason pairs remembered for the rate limit; past it the oldest is forgotten. */
const MAX_SOURCES = 1000;

export type Refused = (req: IncomingMessage, reason: RefusalReason, what: string) => void;

export class RefusalLog {
  private readonly lastLine = new Map<string, { at: number; since: number }>();

  constructor(
    private readonly log: RelayLog,
    private readonly count: (reason: RefusalReason) => void = () => undefined,
    private readonly trustProxy: SourceAllowList | undefined = undefined,
    private readonly now: () => number = Date.now,
    private readonly everyMs = 60_000,
  ) {}

  /** A request refused for `reason`; `what` says what it asked for ("a delivery to channel 'x'", "a page sign-in"). */
  readonly refused: Refused = (req, reason, what) => this.record(clientAddress(req, this.trustProxy), reason, what);

  /** As refused(), with the source address already known. */
  record(address: string | undefined, reason: RefusalReason, what: string): void {
    this.count(reason);
    const source = address ?? 'an unknown address';
    const key = `${reason} ${source}`;
    const t = this.now();
    const last = this.lastLine.get(key);
    if (last && t - last.at < this.everyMs) {
      last.since++;
      return;
    }
    const more = last && last.since > 0 ? ` (${last.since} more from it since the last line)` : '';
    this.lastLine.delete(key);
    if (this.lastLine.size >= MAX_SOURCES) this.lastLine.delete(this.lastLine.keys().next().value!);
    this.lastLine.set(key, { at: t, since: 0 });
    this.log(`refused ${what} from ${source}: ${WHY[reason]}${more}`);
  }
}
