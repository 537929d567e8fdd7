// One connection to one relay (local or remote): its REST API (RelayApi), the live WebSocket
// subscription (resumed by seq) and the live list the Relay view shows. No 'vscode' here, so the
// unit suite drives it against a real relay. A new relay means a new RelayConnection: rows of two
// relays never mix.
import type {
  DeliveryHandled,
  DeliveryList,
  DeliveryListQuery,
  DeliveryMessage,
  ForwardMessage,
  RelayApi,
  RelayDelivery,
  RelayStatus,
  ReplayRequest,
  ReplayResponse,
  Subscription,
  SubscriptionState,
} from '../../../relay/client';
import { RelayApiError } from '../../../relay/client/apiError';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { RelayLiveList, type RelayDeliveryView } from '../../core/tree';

export type RelayClientModule = typeof import('../../../relay/client');
export type RelayDeliveryMessage = DeliveryMessage['delivery'];

export interface RelayEndpoint {
  /** http(s)://host:port (REST) */
  httpUrl: string;
  /** ws(s)://host:port/ws */
  wsUrl: string;
  token: string;
  /** Shown to people: `port 8788` or `relay.example.com`. */
  label: string;
}

/** running: subscribed and caught up or streaming; connecting: first connect or reconnecting. */
export type ConnectionState = 'connecting' | 'running' | 'closed';

export interface ConnectionOptions {
  endpoint: RelayEndpoint;
  client: RelayClientModule;
  /** Resume after this seq; default: after the newest delivery listed at open(). */
  since?: number;
  /**
   * Subscribe with bodies and hand each delivery here in seq order; it is acked when this resolves,
   * with what it resolves to (a forwarded status is recorded by the relay, as for `service-hooks forward`).
   */
  handle?: (delivery: RelayDeliveryMessage) => Promise<DeliveryHandled>;
  /** A delivery the relay sends again on request (replay to the channel's subscribers): posted to the app once more, outside the seq order. */
  replay?: (delivery: RelayDeliveryMessage) => Promise<void>;
  /** The relay's head seq when the subscription opens (forwarding stores it as its first resume point). */
  onOpen?: (relayLastSeq: number) => void;
  log?: (level: 'info' | 'warn' | 'debug', line: string) => void;
  /** REST time-out (ms). */
  timeoutMs?: number;
  /** Certificate authorities for wss:// (see extraCa()). */
  ca?: (string | Buffer)[];
  /** Subscribe to this channel only (the forward set-ups' one channel). */
  channel?: string;
  /** Coalescing window for change events and status refreshes (ms). */
  coalesceMs?: number;
}

export class RelayConnection {
  readonly live = new RelayLiveList();
  readonly api: RelayApi;
  state: ConnectionState = 'connecting';
  detail: string | undefined;
  status: RelayStatus | undefined;
  /** Status requests made (read by the tests: one per catch-up, not one per delivery). */
  statusRequests = 0;
  /** 401/403: the relay refused the token on a reconnect; the subscription has ended. */
  refused: number | undefined;
  /** Catch-ups completed (the replay after each (re)connect reached the live head and the status was read). */
  catchUps = 0;
  private sub: Subscription | undefined;
  private readonly listeners = new Set<() => void>();
  /** Deliveries up to this seq are the replay of the current (re)connect, not live ones. */
  private replayHead = Number.POSITIVE_INFINITY;
  private handledSeq = 0;
  private catchUpPending = false;
  private catchUpTimer: ReturnType<typeof setTimeout> | undefined;
  private statusBusy: Promise<void> | undefined;
  private statusAgain = false;
  private statusTimer: ReturnType<typeof setTimeout> | undefined;
  private changeTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private firstState: ((s: SubscriptionState) => void) | undefined;

  constructor(private readonly options: ConnectionOptions) {
    this.api = new options.client.RelayApi({ baseUrl: options.endpoint.httpUrl, token: options.endpoint.token, timeoutMs: options.timeoutMs ?? 10_000 });
  }

  get endpoint(): RelayEndpoint {
    return this.options.endpoint;
  }

  /** Last seq handled and acknowledged on the subscription. */
  get lastSeq(): number | undefined {
    return this.sub?.lastSeq;
  }

  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Reads status and the newest deliveries, then subscribes. Throws RelayApiError (401, …) or a network error. */
  async open(): Promise<void> {
    this.statusRequests++;
    try {
      this.status = await this.api.status();
    } catch (err) {
      if (!(err instanceof RelayApiError && err.status === 403)) throw err; // a channel token may not read the status
    }
    const recent = await this.api.listDeliveries({ limit: 200 });
    if (this.closed) return;
    for (const d of recent.deliveries) this.live.upsert(d);
    const first = new Promise<SubscriptionState>((resolve) => (this.firstState = resolve));
    this.subscribe(this.options.since ?? recent.lastSeq);
    const s = await first;
    if (s.state === 'reconnecting') {
      await this.close();
      throw new Error(`The relay's WebSocket refused the subscription: ${s.reason}`);
    }
    this.fire();
  }

  private subscribe(since: number): void {
    const handle = this.options.handle;
    this.handledSeq = since;
    this.sub = this.options.client.subscribe({
      url: this.options.endpoint.wsUrl,
      token: this.options.endpoint.token,
      since,
      ...(this.options.channel ? { channel: this.options.channel } : {}),
      bodies: handle !== undefined,
      ca: this.options.ca,
      onDelivery: async (d) => {
        if (this.closed) throw new Error('connection closed');
        this.live.upsert(summaryOf(d));
        // A live delivery shows with its channel's new counts (one coalesced status request);
        // a replayed one shows at once and the catch-up reads the status once at its end.
        if (d.seq <= this.replayHead) this.changedSoon();
        const handled = handle ? await handle(d) : undefined;
        this.handledSeq = d.seq;
        if (d.seq > this.replayHead) this.statusSoon();
        else if (this.catchUpPending) this.catchUpSoon(d.seq >= this.replayHead);
        return handled;
      },
      ...(this.options.replay ? { onReplay: this.options.replay } : {}),
      onForward: (m) => this.onForward(m),
      onBadMessage: (line) => this.options.log?.('warn', `relay ${this.options.endpoint.label}: ${line}`),
      onState: (s) => this.onState(s),
    });
  }

  private onState(s: SubscriptionState): void {
    if (s.state === 'open' || s.state === 'reconnecting' || s.state === 'closed') {
      this.firstState?.(s);
      this.firstState = undefined;
    }
    this.options.log?.('debug', `relay ${this.options.endpoint.label}: ${JSON.stringify(s)}`);
    switch (s.state) {
      case 'connecting':
        if (s.attempt === 1 && this.state !== 'running') this.setState('connecting');
        return;
      case 'open':
        this.replayHead = s.lastSeq;
        this.catchUpPending = false;
        this.options.onOpen?.(s.lastSeq);
        this.setState('running');
        return;
      case 'caught-up':
        // Sent before the queued deliveries are handled: the catch-up ends when the last one is.
        this.replayHead = Math.max(this.replayHead, s.lastSeq);
        this.catchUpPending = true;
        this.catchUpSoon(this.handledSeq >= this.replayHead);
        return;
      case 'reconnecting':
        if (s.refused === 401 || s.refused === 403) return this.refuse(s.refused, s.reason);
        this.setState('connecting', `Reconnecting to ${this.options.endpoint.label}: ${s.reason}`);
        return;
      case 'closed':
        this.setState('closed', s.reason);
        return;
      default:
        assertNever(s);
    }
  }

  /**
   * Ends the catch-up now, or once no replayed delivery was handled for a moment (the relay's head
   * may be another channel's seq, which this subscription never receives).
   */
  private catchUpSoon(now: boolean): void {
    if (this.catchUpTimer) clearTimeout(this.catchUpTimer);
    this.catchUpTimer = now || this.closed ? undefined : setTimeout(() => this.caughtUp(), this.options.coalesceMs ?? 250);
    if (now) this.caughtUp();
  }

  /** One status request per catch-up, however many deliveries were replayed. */
  private caughtUp(): void {
    this.catchUpTimer = undefined;
    if (!this.catchUpPending || this.closed) return;
    this.catchUpPending = false;
    void this.refreshStatus().then(() => {
      this.catchUps++;
      this.fire();
    });
  }

  private onForward(m: ForwardMessage): void {
    const known = this.live.get(m.seq);
    if (!known) return; // older than the view holds
    const others = known.forward.filter((f) => f.target !== m.state.target);
    this.live.upsert({ ...known, forward: [...others, m.state] });
    this.statusSoon(); // fires the change with the new counts
  }

  /**
   * The relay refused the token (revoked, or its channel deleted): retrying cannot help, so the
   * subscription ends and `refused` says why (the manager offers Connect to Relay…).
   */
  private refuse(status: number, reason: string): void {
    this.refused = status;
    const sub = this.sub;
    this.sub = undefined;
    sub?.close();
    this.setState('closed', `The relay refused the token (HTTP ${status}): ${reason}`);
  }

  private setState(state: ConnectionState, detail?: string): void {
    if (this.state === state && this.detail === detail) return;
    this.state = state;
    this.detail = detail;
    this.fire();
  }

  /** GET /api/status, at most one in flight; a call during a request makes one more afterwards. */
  refreshStatus(): Promise<void> {
    if (this.statusBusy) {
      this.statusAgain = true;
      return this.statusBusy;
    }
    this.statusBusy = (async () => {
      do {
        this.statusAgain = false;
        this.statusRequests++;
        try {
          this.status = await this.api.status();
        } catch (err) {
          if (err instanceof RelayApiError && err.status === 403)
            this.status = undefined; // a channel token may not read it
          else this.options.log?.('warn', `relay status: ${(err as Error).message}`);
        }
      } while (this.statusAgain && !this.closed);
    })().finally(() => (this.statusBusy = undefined));
    return this.statusBusy;
  }

  private statusSoon(): void {
    if (this.statusTimer || this.closed) return;
    this.statusTimer = setTimeout(() => {
      this.statusTimer = undefined;
      void this.refreshStatus().then(() => this.fire());
    }, this.options.coalesceMs ?? 100);
  }

  /** Coalesces bursts of live messages into one change event. */
  private changedSoon(): void {
    if (this.changeTimer || this.closed) return;
    this.changeTimer = setTimeout(() => {
      this.changeTimer = undefined;
      this.fire();
    }, this.options.coalesceMs ?? 100);
  }

  private fire(): void {
    for (const l of [...this.listeners]) l();
  }

  /** Re-reads status and the newest deliveries (Refresh). */
  async reload(): Promise<void> {
    await this.refreshStatus();
    const recent = await this.api.listDeliveries({ limit: 200 });
    for (const d of recent.deliveries) this.live.upsert(d);
    this.fire();
  }

  listDeliveries(query: DeliveryListQuery = {}): Promise<DeliveryList> {
    return this.api.listDeliveries({ limit: 200, ...query });
  }

  getDelivery(seq: number): Promise<RelayDelivery> {
    return this.api.getDelivery(seq);
  }

  /** Tells the relay a later result of a delivery acknowledged while its forward was retried (EditorForwarder). */
  report(seq: number, result: { status: number; state: 'ok' | 'failed' | 'pending'; replay?: boolean }): void {
    this.sub?.report(seq, result);
  }

  replay(seq: number, request: ReplayRequest = {}): Promise<ReplayResponse> {
    return this.api.replay(seq, request);
  }

  /** Ends the subscription; resolves when the socket is closed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.statusTimer) clearTimeout(this.statusTimer);
    if (this.catchUpTimer) clearTimeout(this.catchUpTimer);
    if (this.changeTimer) clearTimeout(this.changeTimer);
    const sub = this.sub;
    this.sub = undefined;
    this.state = 'closed';
    if (sub) {
      sub.close();
      await sub.closed;
    }
    this.listeners.clear();
  }
}

/** What a token may do on a relay: everything (the admin token), or one channel. */
export type TokenScope = { kind: 'admin' } | { kind: 'channel'; channel: string | undefined };

/**
 * Asks the relay what `api`'s token is: the channels list is admin-only (403 for a channel token),
 * and asking a channel token for another channel's deliveries names its own channel.
 */
export async function tokenScope(api: RelayApi): Promise<TokenScope> {
  try {
    await api.listChannels();
    return { kind: 'admin' };
  } catch (err) {
    if (!(err instanceof RelayApiError && err.status === 403)) throw err;
  }
  try {
    await api.listDeliveries({ channel: '.scope-probe', limit: 0 });
  } catch (err) {
    const m = /limited to channel '([^']+)'/.exec((err as Error).message);
    if (m) return { kind: 'channel', channel: m[1] };
  }
  const status = await api.status().catch(() => undefined);
  return { kind: 'channel', channel: status?.channels.length === 1 ? status.channels[0]!.name : undefined };
}

/** The view keeps summaries only (no headers or body). */
export function summaryOf(d: RelayDeliveryMessage): RelayDeliveryView {
  const { headers: _h, bodyBase64: _b, ...rest } = d;
  return rest;
}

function assertNever(x: never): never {
  throw new Error(`unexpected subscription state ${JSON.stringify(x)}`);
}

/**
 * Node's default CAs plus NODE_EXTRA_CA_CERTS, for wss://. Node itself honours that variable, but
 * VS Code's extension host gives https requests (the WebSocket's) its own store instead, so the
 * editor passes the list explicitly; undefined (the host's own store) when the variable is unset.
 */
export function extraCa(env: NodeJS.ProcessEnv = process.env): (string | Buffer)[] | undefined {
  const file = env.NODE_EXTRA_CA_CERTS;
  if (!file) return undefined;
  try {
    return [...rootCertificates, readFileSync(file)];
  } catch {
    return undefined; // Node warns about an unreadable file itself
  }
}
