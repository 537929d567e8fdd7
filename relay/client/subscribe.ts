// WebSocket subscriber of the relay: token in a header (or subprotocol), deliveries handled one at
// a time in seq order (or up to `concurrency` at once, started in seq order) and acknowledged
// after the handler resolves, over a contiguous prefix (the acknowledgements of deliveries
// handled while more wait go together: ACK_BATCH), resume from the last acknowledged seq after a
// disconnect as soon as the relay's port answers again (probed while a reconnect waits), with
// exponential backoff while it answers but the connection fails, and ping/pong dead-connection
// detection. With several addresses of one relay (its instances), a lost connection goes on at
// once at the next that answers (./relayAddresses.ts), and every hello must name the relay's
// identity the first named: another is refused, naming both.
// A relay that drops a subscriber for falling behind (close code 4008, WS_CLOSE_SLOW_SUBSCRIBER)
// or refuses it for having too many on its token (HTTP 429) is just another disconnect: the state
// goes 'reconnecting' with the reason, and the subscription resumes by seq, losing nothing.
import WebSocket from 'ws';
import {
  TOKEN_SUBPROTOCOL_PREFIX,
  WS_PATH,
  type AckMessage,
  type DeliveryMessage,
  type ForwardedMessage,
  type ForwardStatus,
  type HelloMessage,
  type ServerMessage,
} from '../../src/core/relay/protocol';
import { parseRetryAfter, subscriberState } from '../../src/core/relay/forwardPolicy';
import { parseServerMessage } from './serverMessage';
import { breaksTheStream, serverMessageProblem } from './serverMessageCheck';
import { escapeControls } from '../../src/core/text/controls';
import { bodyToFollow, FollowingBody } from './followingBody';
import { InOrder } from './inOrder';
import { RelayAddresses } from './relayAddresses';
import type { DeliveryHandled, SubscribeOptions, Subscription, SubscriptionState } from './subscription';

type Delivery = DeliveryMessage['delivery'];

export type { DeliveryHandled, SubscribeOptions, Subscription, SubscriptionState } from './subscription';

export function subscribe(options: SubscribeOptions): Subscription {
  return new Subscriber(options);
}

/**
 * Acknowledgements held while more deliveries wait to be handled: sent together (one write) when
 * the queue is empty or this many are held, so each delivery's ack is neither a write of its own
 * nor between the app's answer and the next delivery's post. Far below the relay's window (256).
 */
export const ACK_BATCH = 32;

/** The most deliveries handled at once: well inside the relay's window of unacknowledged ones (256) with ACK_BATCH held. */
export const MAX_CONCURRENCY = 64;

/**
 * While a reconnect waits, the relay's port is probed this often: once it answers after it did
 * not (the relay is back), the subscriber connects at once instead of waiting out a backoff that
 * grew while the relay was down (24 s after a 30 s outage). The backoff stays for a relay whose
 * port answers but whose connection fails (a refused upgrade, a proxy's 502).
 */
export const RELAY_PROBE_EVERY_MS = 200;

/** How long close() waits for the relay's answer to its close frame before it cuts the connection. */
export const CLOSE_GRACE_MS = 1000;

/** One connection's state: its socket, the handler queue, the liveness timers and why it failed. */
interface Connection {
  sock: WebSocket;
  /** Deliveries received and not handed to the handler yet. */
  received: Delivery[];
  /** Acknowledgements of handled deliveries not sent yet (see ACK_BATCH). */
  acks: AckMessage[];
  /** The connection closed (acknowledgements of it go to the relay as reports). */
  gone?: boolean;
  pingTimer?: ReturnType<typeof setInterval>;
  pongTimer?: ReturnType<typeof setTimeout>;
  failure: string;
  /** The HTTP status of a refused upgrade, and when its Retry-After says to try again (a starting relay: 1 s). */
  refused?: number;
  retryAfterMs?: number;
  /** The first socket error's code. */
  code?: string;
  /** A delivery whose body is still coming as binary messages (bodies=binary). */
  following?: FollowingBody;
  /** Left for a connection from another seq (resumeFrom): its messages are dropped, and the next connects at once. */
  restart?: boolean;
}

/** A delivery handed to the handler and not yet acknowledged. */
interface Handling {
  /** The connection its acknowledgement goes to (the latest that sent it). */
  c: Connection;
  /** Its handler threw: it is handed over again when the relay sends it again. */
  failed?: boolean;
  /** What its handler resolved to (sent with its acknowledgement). */
  handled?: DeliveryHandled;
}

class Subscriber implements Subscription {
  private last: number;
  private readonly concurrency: number;
  /** Handlers running now. */
  private running = 0;
  /** Deliveries handed to the handler and not yet acknowledged, in the order they came. */
  private readonly handling = new InOrder<Handling>();
  private ws: WebSocket | undefined;
  /** The connection of `ws`. */
  private current: Connection | undefined;
  private stopped = false;
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Stops the port probes of the wait for a reconnect (watchPort). */
  private unwatch: (() => void) | undefined;
  private resolveClosed!: () => void;
  /** Reports not yet sent (the connection was down). */
  private reports: ForwardedMessage[] = [];
  /** Bad messages that broke the stream since a delivery was last handled: they keep the backoff growing, though each connection opened. */
  private strikes = 0;
  /** The last hello said sinceAhead and was not believed yet. */
  private aheadOnce = false;
  /** Asked at the first hello (SubscribeOptions.resumeFrom). */
  private resumeFrom: SubscribeOptions['resumeFrom'];
  private readonly addresses: RelayAddresses;
  /** The identity the first hello named (HelloMessage.relay), and the address that named it. */
  private relay: { identity: string | undefined; url: string } | undefined;
  readonly closed = new Promise<void>((r) => (this.resolveClosed = r));

  constructor(private readonly options: SubscribeOptions) {
    this.last = options.since ?? -1;
    this.resumeFrom = options.resumeFrom;
    const n = options.concurrency ?? 1;
    if (!Number.isInteger(n) || n < 1 || n > MAX_CONCURRENCY) throw new RangeError(`concurrency must be an integer from 1 to ${MAX_CONCURRENCY}, got ${n}`);
    this.concurrency = n;
    this.addresses = new RelayAddresses(typeof options.url === 'string' ? [options.url] : options.url);
    this.connect();
  }

  get lastSeq(): number {
    return this.last;
  }

  report(seq: number, result: { status: number; state: ForwardStatus; replay?: boolean }): void {
    this.reports.push({ type: 'forwarded', seq, ...result });
    this.sendReports();
  }

  private sendReports(): void {
    const sock = this.ws;
    if (!sock || sock.readyState !== WebSocket.OPEN) return;
    for (const r of this.reports.splice(0)) sock.send(JSON.stringify(r));
  }

  private state(s: SubscriptionState): void {
    this.options.onState?.(s);
  }

  private endpoint(): string {
    const u = new URL(this.addresses.current);
    if (u.pathname === '/' || u.pathname === '') u.pathname = WS_PATH;
    if (this.last >= 0) u.searchParams.set('since', String(this.last));
    if (this.options.channel) u.searchParams.set('channel', this.options.channel);
    // A large body then comes as raw bytes after its message (older relays send it as base64 anyway).
    u.searchParams.set('bodies', this.options.bodies === false ? '0' : 'binary');
    if (this.options.forwards === false) u.searchParams.set('forwards', '0');
    return u.toString();
  }

  private connect(): void {
    if (this.stopped) return;
    this.stopWatching();
    this.attempt++;
    this.state({ state: 'connecting', attempt: this.attempt, url: this.addresses.current });
    const o = this.options;
    const viaProto = o.tokenIn === 'subprotocol';
    const sock = new WebSocket(this.endpoint(), viaProto ? [TOKEN_SUBPROTOCOL_PREFIX + o.token] : [], {
      headers: { ...(o.headers ?? {}), ...(viaProto ? {} : { authorization: `Bearer ${o.token}` }) },
      perMessageDeflate: false,
      maxPayload: 256 * 1024 * 1024,
      ...(o.ca ? { ca: o.ca } : {}),
    });
    this.ws = sock;
    const c: Connection = { sock, received: [], acks: [], failure: '' };
    this.current = c;
    sock.on('open', () => this.opened(c));
    sock.on('pong', () => {
      if (c.pongTimer) clearTimeout(c.pongTimer);
      c.pongTimer = undefined;
    });
    sock.on('unexpected-response', (_req, res) => {
      c.failure = `relay refused the connection: HTTP ${res.statusCode}${res.statusMessage ? ` ${res.statusMessage}` : ''}`;
      c.refused = res.statusCode;
      c.retryAfterMs = parseRetryAfter(res.headers['retry-after'], Date.now());
      res.resume();
      sock.terminate();
    });
    sock.on('error', (err) => {
      c.code ??= (err as { code?: string }).code;
      c.failure ||= err.message;
    });
    // The frames of a message as they came (not joined): a large delivery's body is decoded from them (./serverMessage.ts).
    sock.binaryType = 'fragments';
    sock.on('message', (data) => this.message(c, data as Buffer | Buffer[]));
    sock.on('close', (code, reason) => this.lost(c, code, reason));
  }

  /** Connected: reset the backoff and start ping/pong liveness. */
  private opened(c: Connection): void {
    this.attempt = 0;
    const pongWithin = this.options.pongTimeoutMs ?? 10_000;
    c.pingTimer = setInterval(() => {
      if (c.pongTimer) return;
      c.pongTimer = setTimeout(() => {
        c.failure = 'no pong from the relay';
        c.sock.terminate();
      }, pongWithin);
      c.sock.ping();
    }, this.options.pingIntervalMs ?? 15_000);
  }

  private message(c: Connection, data: Buffer | Buffer[]): void {
    if (c.restart) return;
    let msg: ServerMessage | undefined;
    if (!c.following) {
      msg = parseServerMessage(data);
      const problem = msg === undefined ? 'it is not JSON' : serverMessageProblem(msg);
      if (problem !== undefined) return this.badMessage(c, msg, problem);
    }
    try {
      const follows = msg && bodyToFollow(msg);
      if (follows) c.following = new FollowingBody(follows);
      else if (c.following) c.following.add(Array.isArray(data) ? data : [data]);
    } catch (err) {
      c.failure = (err as Error).message;
      c.sock.terminate();
      return;
    }
    if (c.following) {
      if (!c.following.whole) return;
      msg = c.following.done();
      c.following = undefined;
    }
    if (!msg) return;
    switch (msg.type) {
      case 'hello':
        return this.hello(c, msg);
      case 'caught-up':
        return this.state({ state: 'caught-up', lastSeq: msg.lastSeq });
      case 'forward':
        return this.options.onForward?.(msg);
      case 'delivery':
        c.received.push(msg.delivery);
        return this.pump(c);
      case 'replay':
        // Beside the ordered queue: a replay neither waits for nor holds back the stream.
        if (!this.stopped) void Promise.resolve(this.options.onReplay?.(msg.delivery)).catch(() => undefined);
        return;
    }
  }

  /** A connection's first message: where to resume (asked once: resumeFrom), then the state 'open'. */
  private hello(c: Connection, msg: HelloMessage): void {
    const url = this.addresses.current;
    const other = this.otherRelay(msg, url);
    if (other) return this.fail(c, other);
    if (this.relay?.identity === undefined) this.relay = { identity: msg.relay, url };
    const resumeFrom = this.resumeFrom;
    this.resumeFrom = undefined;
    const at = resumeFrom?.(msg);
    if (this.stopped) return;
    if (at !== undefined && at !== msg.since) {
      this.last = at;
      c.restart = true;
      c.sock.terminate();
      return;
    }
    // Believed the second time running: an instance of a relay sharing JetStream may be a moment
    // behind the one the resume point came from.
    this.aheadOnce = msg.sinceAhead === true && !this.aheadOnce;
    if (this.aheadOnce) {
      c.failure = `the relay has not reached seq ${msg.since}; asking again`;
      c.sock.terminate();
      return;
    }
    if (this.last < 0) this.last = msg.since;
    this.addresses.opened();
    this.sendReports();
    this.state({
      state: 'open',
      lastSeq: msg.lastSeq,
      url,
      ...(msg.relay ? { relay: msg.relay } : {}),
      ...(msg.scope ? { scope: msg.scope } : {}),
      ...(msg.sinceAhead === true ? { sinceAhead: true } : {}),
    });
  }

  /**
   * Why the relay that sent `msg` at `url` is not the one this subscription follows: it names
   * another identity than the first hello did, or (with several addresses, which only an identity
   * can show to be one relay) none. Undefined: it is the same.
   */
  private otherRelay(msg: HelloMessage, url: string): string | undefined {
    const several = this.addresses.list.length > 1;
    if (several && msg.relay === undefined)
      return `the relay at ${url} does not name its identity (it predates it): several --relay addresses need relays that do; give one address`;
    const first = this.relay;
    // One address whose relay names none (it predates it, or was upgraded since): nothing to compare.
    if (!first || first.identity === undefined || msg.relay === undefined || first.identity === msg.relay) return undefined;
    if (first.url === url)
      return `the relay at ${url} is ${msg.relay} now, not ${first.identity}: its store was replaced (its data reset, or another relay at that address), where the resume point means nothing; restart forward (--since 0 takes every delivery it holds)`;
    return `the relay at ${url} is ${msg.relay}, not ${first.identity} as the relay at ${first.url} said: they are not one relay (another store), so the resume point of one means nothing at the other; give the addresses of one relay's instances`;
  }

  /** Cannot go on (another relay answered): the subscription ends with the state 'closed' and the reason, `error` set. */
  private fail(c: Connection, reason: string): void {
    this.stopped = true;
    this.stopWatching();
    c.restart = true; // its messages are dropped
    c.sock.terminate();
    this.state({ state: 'closed', reason, error: true });
    this.resolveClosed();
  }

  /**
   * A message that is not what its type says, told in one line: past a bad hello or delivery the
   * stream cannot go on (connect again, with a backoff that grows while the relay keeps sending
   * it); a bad message beside the stream is ignored.
   */
  private badMessage(c: Connection, msg: unknown, problem: string): void {
    const type = (msg as { type?: unknown } | undefined)?.type;
    const line = `the relay sent a bad ${typeof type === 'string' ? `${escapeControls(type.slice(0, 20))} ` : ''}message: ${problem}`;
    if (!breaksTheStream(msg)) return this.options.onBadMessage?.(line);
    this.strikes++;
    c.failure = line;
    c.sock.terminate();
  }

  /** Hands received deliveries to the handler, in seq order, while fewer than `concurrency` run. */
  private pump(c: Connection): void {
    while (this.running < this.concurrency && c.received.length > 0) this.begin(c, c.received.shift()!);
  }

  private begin(c: Connection, d: Delivery): void {
    if (this.stopped || c.sock.readyState !== WebSocket.OPEN || d.seq <= this.last) return;
    let h = this.handling.get(d.seq);
    if (h) {
      // Sent again after a reconnect while its handler ran (or waited for older ones): not handed
      // over twice; its acknowledgement goes to this connection. One whose handler threw runs again.
      h.c = c;
      if (!h.failed) return;
      h.failed = false;
    } else {
      h = { c };
      this.handling.start(d.seq, h);
    }
    this.running++;
    void this.run(h, d);
  }

  /** Runs the handler of one delivery; acknowledges it (and those it releases) once every older one is done. */
  private async run(h: Handling, d: Delivery): Promise<void> {
    let handled: DeliveryHandled;
    try {
      handled = await this.options.onDelivery(d);
    } catch (err) {
      this.running--;
      h.failed = true;
      h.c.failure = `delivery ${d.seq} handler failed: ${(err as Error).message}`;
      this.sendAcks(h.c); // those released before it
      h.c.sock.terminate();
      return;
    }
    this.running--;
    this.strikes = 0;
    h.handled = handled;
    for (const released of this.handling.finish(d.seq)) {
      const { seq } = released;
      const done = released.value!; // every seq here was started with its Handling
      if (seq > this.last) this.last = seq;
      const h = done.handled;
      done.c.acks.push({ type: 'ack', seq, ...(h?.forwarded ? { forwarded: h.forwarded } : {}), ...(h?.skipped ? { skipped: h.skipped } : {}) });
      if (done.c.gone) this.keepUnsentAcks(done.c); // closed while the app answered
    }
    const c = this.current;
    if (!c || c.gone) return;
    // Nothing more waits to start (ack now: the relay records the app's answers), or a batch is full.
    if (c.received.length === 0 || c.acks.length >= ACK_BATCH) this.sendAcks(c);
    this.pump(c);
  }

  /** Sends the held acknowledgements, in one write of the socket. */
  private sendAcks(c: Connection): void {
    if (c.acks.length === 0 || c.sock.readyState !== WebSocket.OPEN) return;
    // ws has no cork of its own; its socket (a net or tls socket) does.
    const raw = (c.sock as unknown as { _socket?: { cork?: () => void; uncork?: () => void } })._socket;
    raw?.cork?.();
    for (const ack of c.acks.splice(0)) c.sock.send(JSON.stringify(ack));
    raw?.uncork?.();
  }

  /**
   * The connection is gone with acknowledgements unsent: the app's answers they carry go to the
   * relay as reports on the next connection (it resumes after them, so they are not acks there).
   */
  private keepUnsentAcks(c: Connection): void {
    if (this.stopped) return;
    for (const a of c.acks.splice(0)) {
      if (a.forwarded) this.reports.push({ type: 'forwarded', seq: a.seq, status: a.forwarded.status, state: subscriberState(a.forwarded.status) });
    }
  }

  /** The connection closed: reconnect after a backoff with jitter, unless close() was called. */
  private lost(c: Connection, code: number, reason: Buffer): void {
    if (c.pingTimer) clearInterval(c.pingTimer);
    if (c.pongTimer) clearTimeout(c.pongTimer);
    c.gone = true;
    c.received.length = 0;
    if (this.stopped) return;
    this.keepUnsentAcks(c);
    if (c.restart) return this.connect();
    const why = c.failure || `closed (${code}${reason.length ? ` ${reason.toString()}` : ''})`;
    this.addresses.lost(c.code);
    if (this.addresses.list.length > 1) return void this.failover(c, why);
    this.wait(c, why);
  }

  /** Another address that answers now, connected to at once; none: the backoff's wait (wait()). */
  private async failover(c: Connection, why: string): Promise<void> {
    const from = this.addresses.current;
    const next = await this.addresses.failover();
    if (this.stopped) return;
    if (next === undefined) return this.wait(c, why);
    this.state({
      state: 'reconnecting',
      delayMs: 0,
      reason: why,
      url: from,
      next,
      ...(c.refused ? { refused: c.refused } : {}),
      ...(c.code ? { code: c.code } : {}),
    });
    if (!this.stopped) this.connect();
  }

  /** Connects again after a backoff with jitter, or as soon as a relay address's port answers again. */
  private wait(c: Connection, why: string): void {
    const initial = this.options.backoff?.initialMs ?? 250;
    const max = this.options.backoff?.maxMs ?? 30_000;
    const backoff = Math.min(max, initial * 2 ** Math.min(Math.max(this.attempt, this.strikes), 16)) * (0.5 + Math.random() / 2);
    const delay = c.retryAfterMs === undefined ? backoff : Math.min(backoff, Math.max(c.retryAfterMs, RELAY_PROBE_EVERY_MS));
    const url = this.addresses.current;
    this.state({
      state: 'reconnecting',
      delayMs: Math.round(delay),
      reason: why,
      url,
      ...(c.refused ? { refused: c.refused } : {}),
      ...(c.code ? { code: c.code } : {}),
    });
    if (this.stopped) return; // close() from onState
    this.retryTimer = setTimeout(() => (this.addresses.rotate(), this.connect()), delay);
    // Refused: the port was closed then; else the first probe tells.
    // Back: the backoff grown while it was down starts again.
    const back = () => ((this.attempt = 0), this.connect());
    this.unwatch = this.addresses.watch(RELAY_PROBE_EVERY_MS, back);
  }

  /** Ends the wait for a reconnect: its timer and its port probes. */
  private stopWatching(): void {
    this.unwatch?.();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.unwatch = this.retryTimer = undefined;
  }

  close(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stopWatching();
    const sock = this.ws;
    const done = () => {
      this.state({ state: 'closed', reason: 'closed by client' });
      this.resolveClosed();
    };
    if (sock && sock.readyState !== WebSocket.CLOSED) {
      sock.once('close', done);
      if (sock.readyState === WebSocket.CONNECTING) sock.terminate();
      else {
        if (this.current) this.sendAcks(this.current); // before the close frame
        sock.close(1000);
        // A relay that never answers the close frame would hold `closed` for ws's 30 s (the editor's
        // reconnect waits for it): cut the connection after 1 s, as the relay does its side's.
        const cut = setTimeout(() => sock.terminate(), CLOSE_GRACE_MS);
        sock.once('close', () => clearTimeout(cut));
      }
    } else done();
  }
}
