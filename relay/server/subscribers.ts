// WebSocket subscribers at /ws: token auth (header or subprotocol; a channel token streams only its
// channel, and its streams close when the channel is deleted), Host/Origin checks, replay
// from `since` in seq order then live, a window of unacknowledged deliveries, ping liveness.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  TOKEN_SUBPROTOCOL_PREFIX,
  type ClientMessage,
  type DeliveryMessage,
  type ForwardAttempt,
  type ForwardState,
  type ServerMessage,
} from '../../src/core/relay/protocol';
import { bearer, hostAllowed, originAllowed } from './access';
import type { Scope } from './scope';
import { headerRecord, type DeliveryStore } from './store';

export interface SubscriberOptions {
  /** The scope of a presented token; undefined: 401. */
  authenticate: (given: string | undefined) => Scope | undefined;
  boundHost: string;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
  /** Deliveries sent and not yet acknowledged, per subscriber (default 256). */
  window?: number;
  pingIntervalMs?: number;
}

class Subscriber {
  sent = 0;
  acked = 0;
  unacked: number[] = [];
  caughtUp = false;
  pumping = false;
  alive = true;
  /** The channel a channel token limits this subscriber to (undefined: the admin token). */
  scopedTo: string | undefined;

  constructor(
    readonly ws: WebSocket,
    readonly channel: string | undefined,
    readonly bodies: boolean,
    since: number,
  ) {
    this.sent = since;
    this.acked = since;
  }
}

export class SubscriberHub {
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: 64 * 1024,
    handleProtocols: (protocols) => {
      for (const p of protocols) if (p.startsWith(TOKEN_SUBPROTOCOL_PREFIX)) return p;
      return false;
    },
  });
  private readonly subs = new Set<Subscriber>();
  private readonly window: number;
  private readonly pinger: ReturnType<typeof setInterval>;

  constructor(
    private readonly store: DeliveryStore,
    private readonly options: SubscriberOptions,
  ) {
    this.window = options.window ?? 256;
    store.on('delivery', () => {
      for (const s of this.subs) void this.pump(s);
    });
    store.on('forward', (seq, attempt, state) => this.broadcastForward(seq, attempt, state));
    this.pinger = setInterval(() => {
      for (const s of this.subs) {
        if (!s.alive) {
          s.ws.terminate();
          continue;
        }
        s.alive = false;
        s.ws.ping();
      }
    }, options.pingIntervalMs ?? 30_000);
    this.pinger.unref();
  }

  get count(): number {
    return this.subs.size;
  }

  /** Handles an HTTP upgrade on /ws; refuses with a plain HTTP status on any failed check. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): void {
    // A client that resets the connection must not crash the relay (the upgraded socket has no other listener).
    if (socket.listenerCount('error') === 0) socket.on('error', () => socket.destroy());
    const refuse = (status: number, reason: string) => {
      socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${reason.length}\r\n\r\n${reason}`, () => socket.destroy());
    };
    if (!hostAllowed(req.headers.host, this.options.boundHost, this.options.allowedHosts)) return refuse(403, 'Forbidden Host');
    const origin = req.headers.origin;
    if (!originAllowed(origin, this.options.allowedOrigins)) return refuse(403, 'Forbidden Origin');
    const protoHeader = req.headers['sec-websocket-protocol'];
    const fromProto = protoHeader
      ?.split(',')
      .map((p) => p.trim())
      .find((p) => p.startsWith(TOKEN_SUBPROTOCOL_PREFIX))
      ?.slice(TOKEN_SUBPROTOCOL_PREFIX.length);
    const given = bearer(req) ?? fromProto;
    const scope = this.options.authenticate(given);
    if (!scope) return refuse(401, 'Unauthorized');
    const sinceRaw = url.searchParams.get('since');
    const since = sinceRaw === null ? this.store.lastSeq : Number(sinceRaw);
    if (!Number.isInteger(since) || since < 0) return refuse(400, 'Bad since');
    const asked = url.searchParams.get('channel') ?? undefined;
    if (scope.kind === 'channel' && asked !== undefined && asked !== scope.channel) return refuse(403, 'Forbidden Channel');
    const channel = scope.kind === 'channel' ? scope.channel : asked;
    const bodies = url.searchParams.get('bodies') !== '0';
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const sub = new Subscriber(ws, channel, bodies, since);
      sub.scopedTo = scope.kind === 'channel' ? scope.channel : undefined;
      this.subs.add(sub);
      ws.on('pong', () => (sub.alive = true));
      ws.on('close', () => this.subs.delete(sub));
      ws.on('error', () => ws.terminate());
      ws.on('message', (data, isBinary) => {
        if (isBinary) return;
        let msg: ClientMessage;
        try {
          msg = JSON.parse(data.toString()) as ClientMessage;
        } catch {
          return;
        }
        if (typeof msg !== 'object' || msg === null) return; // `null`, numbers, strings: ignored
        if (msg.type === 'ack' && Number.isInteger(msg.seq)) {
          sub.acked = Math.max(sub.acked, msg.seq);
          sub.unacked = sub.unacked.filter((s) => s > sub.acked);
          void this.pump(sub);
        }
      });
      this.send(sub, { type: 'hello', lastSeq: this.store.lastSeq, since });
      void this.pump(sub);
    });
  }

  private send(sub: Subscriber, msg: ServerMessage): Promise<void> {
    return new Promise((resolve) => {
      if (sub.ws.readyState !== sub.ws.OPEN) return resolve();
      sub.ws.send(JSON.stringify(msg), () => resolve());
    });
  }

  /** Sends every delivery after `sub.sent`, in seq order, within the ack window. */
  private async pump(sub: Subscriber): Promise<void> {
    if (sub.pumping) return;
    sub.pumping = true;
    try {
      while (sub.ws.readyState === sub.ws.OPEN && sub.unacked.length < this.window) {
        const next = this.store.after(sub.sent, sub.channel).next();
        if (next.done) {
          if (!sub.caughtUp) {
            sub.caughtUp = true;
            await this.send(sub, { type: 'caught-up', lastSeq: this.store.lastSeq });
          }
          break;
        }
        const e = next.value;
        const delivery: DeliveryMessage['delivery'] = { ...e.summary };
        if (sub.bodies) {
          const r = await this.store.read(e.summary.seq).catch(() => undefined);
          if (r) {
            delivery.headers = headerRecord(r.meta.headers);
            delivery.bodyBase64 = r.body.toString('base64');
          }
        }
        sub.sent = e.summary.seq;
        sub.unacked.push(e.summary.seq);
        await this.send(sub, { type: 'delivery', delivery });
      }
    } finally {
      sub.pumping = false;
    }
  }

  private broadcastForward(seq: number, attempt: ForwardAttempt, state: ForwardState | undefined): void {
    if (this.subs.size === 0) return; // nobody to tell: no message to build
    const e = this.store.get(seq);
    if (!e) return;
    const msg = JSON.stringify({ type: 'forward', seq, attempt, state: state ?? e.summary.forward.find((f) => f.target === attempt.target) ?? { target: attempt.target, status: attempt.ok ? 'ok' : 'failed', attempts: 1 } } satisfies ServerMessage);
    for (const s of this.subs) {
      if (s.ws.readyState !== s.ws.OPEN || seq > s.sent) continue;
      if (s.channel && s.channel !== e.summary.channel) continue;
      s.ws.send(msg);
    }
  }

  /** Closes the streams opened with the token of channel `name` (it was deleted); they get 401 on reconnect. */
  revoke(name: string): void {
    for (const s of this.subs) if (s.scopedTo === name) s.ws.close(1008, 'channel deleted');
  }

  close(): void {
    clearInterval(this.pinger);
    for (const s of this.subs) s.ws.close(1001, 'relay stopping');
    // A subscriber that never answers the close frame would hold close() for ws's 30 s: cut it after 1 s.
    const stragglers = [...this.subs].map((s) => s.ws);
    if (stragglers.length > 0) setTimeout(() => stragglers.forEach((ws) => ws.terminate()), 1000).unref();
    this.wss.close();
  }
}
