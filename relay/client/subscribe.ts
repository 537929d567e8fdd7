// WebSocket subscriber of the relay: token in a header (or subprotocol), deliveries handled one at
// a time in seq order and acknowledged after the handler resolves, resume from the last handled
// seq after a disconnect with exponential backoff, and ping/pong dead-connection detection.
import WebSocket from 'ws';
import {
  TOKEN_SUBPROTOCOL_PREFIX,
  WS_PATH,
  type AckMessage,
  type DeliveryMessage,
  type ForwardMessage,
  type ServerMessage,
} from '../../src/core/relay/protocol';

export type SubscriptionState =
  | { state: 'connecting'; attempt: number }
  | { state: 'open'; lastSeq: number }
  | { state: 'caught-up'; lastSeq: number }
  | { state: 'reconnecting'; delayMs: number; reason: string }
  | { state: 'closed'; reason: string };

export interface SubscribeOptions {
  /** ws(s)://HOST:PORT/ws (the /ws path is added when missing). */
  url: string;
  token: string;
  /** Resume after this seq (default: only new deliveries). */
  since?: number;
  channel?: string;
  /** false: summaries only (no headers/body). Default true. */
  bodies?: boolean;
  /**
   * Handled in seq order; acked when it resolves. A throw/rejection closes the connection and the
   * delivery is re-sent after reconnect. Resolving to `{ forwarded: { status } }` (a forwarder's
   * app answered 2xx) tells the relay, which records it as the delivery's forward state.
   */
  onDelivery: (delivery: DeliveryMessage['delivery']) => void | Pick<AckMessage, 'forwarded'> | Promise<void | Pick<AckMessage, 'forwarded'>>;
  onForward?: (message: ForwardMessage) => void;
  onState?: (state: SubscriptionState) => void;
  /** Send the token as subprotocol instead of an Authorization header (browsers cannot set headers). */
  tokenIn?: 'header' | 'subprotocol';
  pingIntervalMs?: number;
  pongTimeoutMs?: number;
  backoff?: { initialMs?: number; maxMs?: number };
  headers?: Record<string, string>;
}

export interface Subscription {
  /** Last delivery handled and acked. */
  readonly lastSeq: number;
  close(): void;
  /** Resolves after close(). */
  readonly closed: Promise<void>;
}

export function subscribe(options: SubscribeOptions): Subscription {
  let lastSeq = options.since ?? -1;
  let ws: WebSocket | undefined;
  let stopped = false;
  let attempt = 0;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const initial = options.backoff?.initialMs ?? 250;
  const max = options.backoff?.maxMs ?? 30_000;
  const pingEvery = options.pingIntervalMs ?? 15_000;
  const pongWithin = options.pongTimeoutMs ?? 10_000;
  const state = (s: SubscriptionState) => options.onState?.(s);

  const endpoint = (): string => {
    const u = new URL(options.url);
    if (u.pathname === '/' || u.pathname === '') u.pathname = WS_PATH;
    if (lastSeq >= 0) u.searchParams.set('since', String(lastSeq));
    if (options.channel) u.searchParams.set('channel', options.channel);
    if (options.bodies === false) u.searchParams.set('bodies', '0');
    return u.toString();
  };

  const connect = () => {
    if (stopped) return;
    attempt++;
    state({ state: 'connecting', attempt });
    const viaProto = options.tokenIn === 'subprotocol';
    const sock = new WebSocket(endpoint(), viaProto ? [TOKEN_SUBPROTOCOL_PREFIX + options.token] : [], {
      headers: { ...(options.headers ?? {}), ...(viaProto ? {} : { authorization: `Bearer ${options.token}` }) },
      perMessageDeflate: false,
      maxPayload: 256 * 1024 * 1024,
    });
    ws = sock;
    let queue = Promise.resolve();
    let pingTimer: ReturnType<typeof setInterval> | undefined;
    let pongTimer: ReturnType<typeof setTimeout> | undefined;
    let failure = '';

    sock.on('open', () => {
      attempt = 0;
      pingTimer = setInterval(() => {
        if (pongTimer) return;
        pongTimer = setTimeout(() => {
          failure = 'no pong from the relay';
          sock.terminate();
        }, pongWithin);
        sock.ping();
      }, pingEvery);
    });
    sock.on('pong', () => {
      if (pongTimer) clearTimeout(pongTimer);
      pongTimer = undefined;
    });
    sock.on('unexpected-response', (_req, res) => {
      failure = `relay refused the connection: HTTP ${res.statusCode}`;
      res.resume();
      sock.terminate();
    });
    sock.on('error', (err) => {
      failure ||= err.message;
    });
    sock.on('message', (data) => {
      let msg: ServerMessage;
      try {
        msg = JSON.parse(data.toString()) as ServerMessage;
      } catch {
        return;
      }
      if (msg.type === 'hello') {
        if (lastSeq < 0) lastSeq = msg.since;
        state({ state: 'open', lastSeq: msg.lastSeq });
      } else if (msg.type === 'caught-up') state({ state: 'caught-up', lastSeq: msg.lastSeq });
      else if (msg.type === 'forward') options.onForward?.(msg);
      else if (msg.type === 'delivery') {
        const d = msg.delivery;
        queue = queue.then(async () => {
          if (stopped || sock.readyState !== WebSocket.OPEN || d.seq <= lastSeq) return;
          let handled: void | Pick<AckMessage, 'forwarded'>;
          try {
            handled = await options.onDelivery(d);
          } catch (err) {
            failure = `delivery ${d.seq} handler failed: ${(err as Error).message}`;
            sock.terminate();
            return;
          }
          lastSeq = d.seq;
          const ack: AckMessage = { type: 'ack', seq: d.seq, ...(handled?.forwarded ? { forwarded: handled.forwarded } : {}) };
          if (sock.readyState === WebSocket.OPEN) sock.send(JSON.stringify(ack));
        });
      }
    });
    sock.on('close', (code, reason) => {
      if (pingTimer) clearInterval(pingTimer);
      if (pongTimer) clearTimeout(pongTimer);
      if (stopped) return;
      const why = failure || `closed (${code}${reason.length ? ` ${reason.toString()}` : ''})`;
      const delay = Math.min(max, initial * 2 ** Math.min(attempt, 16)) * (0.5 + Math.random() / 2);
      state({ state: 'reconnecting', delayMs: Math.round(delay), reason: why });
      retryTimer = setTimeout(connect, delay);
    });
  };

  connect();
  return {
    get lastSeq() {
      return lastSeq;
    },
    closed,
    close() {
      if (stopped) return;
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      const sock = ws;
      const done = () => {
        state({ state: 'closed', reason: 'closed by client' });
        resolveClosed();
      };
      if (sock && sock.readyState !== WebSocket.CLOSED) {
        sock.once('close', done);
        if (sock.readyState === WebSocket.CONNECTING) sock.terminate();
        else sock.close(1000);
      } else done();
    },
  };
}
