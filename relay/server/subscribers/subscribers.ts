// WebSocket subscribers at /ws: token auth (header or subprotocol; a channel token streams only its
// channel, and its streams close when the channel is deleted), Host/Origin checks, replay
// from `since` in seq order then live, a window of unacknowledged deliveries, ping liveness, and
// resource limits: subscribers are indexed by channel (a delivery wakes only its channel's
// subscribers), capped per token, flow-controlled by what their connection drains, and dropped
// with WS_CLOSE_SLOW_SUBSCRIBER when more than `maxUnsentBytes` wait for a connection that does
// not drain. A dropped subscriber loses nothing: it reconnects with since=<last acked seq>.
// `posts=<name,…>`: the channels a subscriber of every channel posts to an app (the editor with the
// admin token forwards its set-ups' channels only): a replay to subscribers counts it for those.
// Memory is bounded per subscriber, per token and relay-wide: a large body goes as fragments read
// from the journal as the connection drains (./deliveryStream.ts), never as a copy per subscriber,
// and a subscriber waits to write while its token's or the relay's queued bytes are over their bound.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import {
  TOKEN_SUBPROTOCOL_PREFIX,
  WS_TOO_MANY_SUBSCRIBERS_STATUS,
  type ForwardStatus,
  type ForwardAttempt,
  type ForwardState,
  type ServerMessage,
} from '../../../src/core/relay/protocol';
import { bearer, hostAllowed, originAllowed } from '../access/access';
import { DeliveryMessages } from './deliveryMessages';
import { DeliveryStreams, PART_BYTES } from './deliveryStream';
import { scopedChannel, type Scope } from '../access/scope';
import { FlowControl } from './flowControl';
import { Subscriber } from './subscriber';
import { helloMessage, tokenScope } from './hello';
import { ackRefusal, clientMessage } from './clientMessages';
import type { RelayStore, StoredDelivery } from '../base/storeTypes';

export const DEFAULT_MAX_UNSENT_BYTES = 8 * 1024 * 1024;
export const DEFAULT_MAX_SUBSCRIBERS_PER_TOKEN = 64;
export const DEFAULT_MAX_QUEUED_BYTES_PER_TOKEN = 16 * 1024 * 1024;
export const DEFAULT_MAX_QUEUED_BYTES = 64 * 1024 * 1024;
/**
 * Deliveries whose bodies a subscriber's pump reads ahead of the one it sends: a read that waits
 * (a JetStream replica that hangs until a request to it times out) then holds up the ones after
 * it by its own wait only, not by the sum of every wait in the burst (issue 21).
 */
const READ_AHEAD = 32;
/** Bodies larger than this go to subscribers as fragments read from the store (smaller ones as one shared message). */
export const STREAM_BODY_BYTES = 4 * PART_BYTES;

export interface SubscriberOptions {
  /** The scope of a presented token; undefined: 401. */
  authenticate: (given: string | undefined) => Scope | undefined;
  /** The current identity of a channel name (relay/server/base/channelKey.ts): what a stream of one channel follows. */
  keyOf?: (name: string) => string;
  boundHost: string;
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
  /** Deliveries sent and not yet acknowledged, per subscriber (default 256). */
  window?: number;
  pingIntervalMs?: number;
  /**
   * Bytes that may wait for one subscriber (queued on its connection, plus live deliveries that
   * arrived while it did not drain) before it is dropped (default 8 MiB). One delivery larger than
   * this is still sent, alone, when the connection has drained.
   */
  maxUnsentBytes?: number;
  /** Connected subscribers per token; more are refused with HTTP 429 (default 64). */
  maxSubscribersPerToken?: number;
  /**
   * Bytes queued on the connections of one token's subscribers (default 16 MiB), and of all
   * subscribers (default 64 MiB; also the bound on bodies a store without part reads holds whole
   * for them): past it, a subscriber with something still queued waits for it to drain before
   * writing more (one without writes one message or fragment, so each goes on).
   */
  maxQueuedBytesPerToken?: number;
  maxQueuedBytes?: number;
  /**
   * A subscriber forwarded a delivery it was sent to its app, which answered `status`
   * (AckMessage.forwarded; `state` from a ForwardedMessage, else derived from the status).
   */
  onForwarded?: (seq: number, status: number, state?: ForwardStatus, replay?: boolean) => void;
  /** A subscriber's filter left delivery `seq` out (an ack with `skipped: 'filter'`). */
  onSkipped?: (seq: number) => void;
  /** Told of each upgrade refused, with its status and reason phrase (the relay logs and counts it). */
  onRefused?: (req: IncomingMessage, status: number, phrase: string) => void;
  /** The identity of the relay's store (../store/storeIdentity.ts), which the hello names (HelloMessage.relay). */
  relay?: string;
  /** After a delivery's body could not be read (the store did not answer in time), wait this long before reading it again (default 500 ms). */
  readRetryMs?: number;
}

export interface SubscriberStats {
  subscribers: number;
  /** Subscribers dropped for being too slow, since start. */
  dropped: number;
  /** Times a new delivery woke a subscriber (only the subscribers of its channel are woken). */
  wakeups: number;
  /** The largest number of bytes queued on any subscriber's connection right now. */
  maxQueuedBytes: number;
  /** Bytes queued on all subscribers' connections right now. */
  queuedBytes: number;
  /** Subscribers waiting for their connection to drain before they are sent more. */
  stalled: number;
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
  /** Subscribers of one channel, and (key '') of every channel. */
  private readonly byChannel = new Map<string, Set<Subscriber>>();
  private readonly perToken = new Map<string, number>();
  private readonly window: number;
  private readonly maxPerToken: number;
  private readonly flow: FlowControl;
  private readonly messages: DeliveryMessages;
  private readonly streams: DeliveryStreams;
  private readonly pinger: ReturnType<typeof setInterval>;
  private wakeups = 0;

  constructor(
    private readonly store: RelayStore,
    private readonly options: SubscriberOptions,
  ) {
    this.window = options.window ?? 256;
    const maxUnsent = Math.max(1, options.maxUnsentBytes ?? DEFAULT_MAX_UNSENT_BYTES);
    this.maxPerToken = Math.max(1, options.maxSubscribersPerToken ?? DEFAULT_MAX_SUBSCRIBERS_PER_TOKEN);
    const maxQueued = Math.max(1, options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES);
    this.flow = new FlowControl(
      {
        maxUnsent,
        lowWater: Math.min(1024 * 1024, Math.ceil(maxUnsent / 4)),
        maxQueuedPerToken: Math.max(1, options.maxQueuedBytesPerToken ?? DEFAULT_MAX_QUEUED_BYTES_PER_TOKEN),
        maxQueued,
      },
      (sub) => this.remove(sub),
    );
    this.messages = new DeliveryMessages(store);
    this.streams = new DeliveryStreams(store, maxQueued);
    store.on('delivery', (entry) => this.wake(entry));
    store.on('forward', (seq, attempt, state) => {
      this.messages.invalidate(seq);
      this.broadcastForward(seq, attempt, state);
    });
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

  /** Bytes queued on every subscriber's connection right now (the metrics' gauge). */
  get queuedBytes(): number {
    let n = 0;
    for (const s of this.subs) n += s.queued;
    return n;
  }

  get stats(): SubscriberStats {
    let maxQueuedBytes = 0;
    let stalled = 0;
    for (const s of this.subs) {
      maxQueuedBytes = Math.max(maxQueuedBytes, s.queued);
      if (s.stalled) stalled++;
    }
    return { subscribers: this.subs.size, dropped: this.flow.dropped, wakeups: this.wakeups, maxQueuedBytes, queuedBytes: this.flow.queued, stalled };
  }

  /** Handles an HTTP upgrade on /ws; refuses with a plain HTTP status on any failed check. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): void {
    // A client that resets the connection must not crash the relay (the upgraded socket has no other listener).
    if (socket.listenerCount('error') === 0) socket.on('error', () => socket.destroy());
    const refuse = (status: number, reason: string) => {
      this.options.onRefused?.(req, status, reason);
      socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${reason.length}\r\n\r\n${reason}`, () =>
        socket.destroy(),
      );
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
    const token = given!;
    if ((this.perToken.get(token) ?? 0) >= this.maxPerToken) return refuse(WS_TOO_MANY_SUBSCRIBERS_STATUS, 'Too Many Subscribers');
    const sinceRaw = url.searchParams.get('since');
    // From now by default: for a channel token, its channel's last seq (the relay-wide one is not its to learn).
    const since = sinceRaw === null ? (scope.kind === 'channel' ? this.store.lastSeqOf(scope.key) : this.store.lastSeq) : Number(sinceRaw);
    if (!Number.isInteger(since) || since < 0) return refuse(400, 'Bad since');
    const asked = url.searchParams.get('channel') || undefined;
    const narrowed = scopedChannel(scope, asked, this.options.keyOf ?? ((name) => name));
    // The reason phrase names the token's channel (names are [A-Za-z0-9._-]: safe in a status line).
    if ('error' in narrowed) return refuse(403, `Forbidden Channel (${narrowed.error})`);
    const channel = narrowed.channel;
    const bodies = url.searchParams.get('bodies') !== '0';
    const binary = url.searchParams.get('bodies') === 'binary';
    const forwards = url.searchParams.get('forwards') !== '0';
    // Counted from now, so concurrent upgrades cannot pass the cap together; given back if the
    // handshake fails (ws then answers 400 itself and never calls back).
    this.perToken.set(token, (this.perToken.get(token) ?? 0) + 1);
    let accepted = false;
    socket.once('close', () => accepted || this.release(token));
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      accepted = true;
      const sub = new Subscriber(ws, token, channel, bodies, since, forwards, binary);
      sub.scope = tokenScope(scope);
      const posts = url.searchParams.get('posts');
      sub.posts = posts === null ? undefined : new Set(posts.split(',').filter(Boolean));
      this.accept(sub);
    });
  }

  private release(token: string): void {
    const n = (this.perToken.get(token) ?? 1) - 1;
    if (n > 0) this.perToken.set(token, n);
    else this.perToken.delete(token);
  }

  private accept(sub: Subscriber): void {
    const { ws } = sub;
    this.subs.add(sub);
    const key = sub.channel ?? '';
    let set = this.byChannel.get(key);
    if (!set) this.byChannel.set(key, (set = new Set()));
    set.add(sub);
    ws.on('pong', () => (sub.alive = true));
    ws.on('close', () => this.remove(sub));
    ws.on('error', () => ws.terminate());
    ws.on('message', (data, isBinary) => {
      const msg = isBinary ? undefined : clientMessage(data.toString());
      if (!msg) return;
      if (msg.type === 'ack') {
        const refused = ackRefusal(msg);
        if (refused) return this.flow.write(sub, Buffer.from(JSON.stringify({ type: 'error', error: refused } satisfies ServerMessage)));
        const status = msg.forwarded?.status;
        if (status !== undefined && sub.unacked.includes(msg.seq)) this.options.onForwarded?.(msg.seq, status);
        else if (msg.skipped === 'filter' && sub.unacked.includes(msg.seq)) this.options.onSkipped?.(msg.seq);
        sub.acked = Math.max(sub.acked, msg.seq);
        sub.unacked = sub.unacked.filter((s) => s > sub.acked);
        void this.pump(sub);
      } else if (msg.type === 'forwarded') {
        if (msg.seq <= sub.sent && this.inScope(sub, msg.seq)) this.options.onForwarded?.(msg.seq, msg.status, msg.state, msg.replay === true);
      }
    });
    this.flow.write(sub, helloMessage(sub.scope, this.lastSeqFor(sub), sub.sent, this.store.lastSeq, this.options.relay));
    void this.pump(sub);
  }

  /** The relay-wide last seq for the admin token; a channel token's own channel's only. */
  private lastSeqFor(sub: Subscriber): number {
    return sub.scope.kind === 'admin' ? this.store.lastSeq : this.store.lastSeqOf(sub.channel ?? '');
  }

  /** Is delivery `seq` of the channel this subscriber may see (and asked for)? */
  private inScope(sub: Subscriber, seq: number): boolean {
    // sub.channel is a channel identity (name@generation; a channel token's always is its own).
    const key = this.store.get(seq)?.channelKey;
    return key !== undefined && (sub.channel === undefined || key === sub.channel);
  }

  /**
   * A delivery the ingress is journaling (`seq` assigned, not durable yet): its small body is kept
   * for the subscribers' message when some subscriber takes bodies, so sending it once it is durable
   * needs no read back from the journal. It is sent only then: the pump sees what the store indexed.
   */
  hold(seq: number, headers: [string, string][], body: Buffer): void {
    if (seq <= 0 || body.length > STREAM_BODY_BYTES || !this.some((s) => s.bodies)) return;
    this.messages.hold(seq, headers, body);
  }

  /** Is there a subscriber for which `pred` holds? */
  private some(pred: (s: Subscriber) => boolean): boolean {
    for (const s of this.subs) if (pred(s)) return true;
    return false;
  }

  /** Forgets a subscriber (once): indexes and the per-token count. */
  private remove(sub: Subscriber): void {
    if (!this.subs.delete(sub)) return;
    const key = sub.channel ?? '';
    const set = this.byChannel.get(key);
    set?.delete(sub);
    if (set?.size === 0) this.byChannel.delete(key);
    this.release(sub.token);
  }

  /** A new delivery: wakes only the subscribers of its channel (and those of every channel). */
  private wake(entry: StoredDelivery): void {
    if (this.subs.size === 0) return; // (and no summary built for nobody)
    for (const key of ['', entry.channelKey]) {
      const set = this.byChannel.get(key);
      if (!set) continue;
      for (const s of set) {
        this.wakeups++;
        if (s.stalled) {
          // Not queued anywhere (the pump reads it from the journal later), but owed to a connection
          // that does not drain: past the bound, the subscriber goes and resumes by seq.
          this.flow.owe(s, entry.size * (s.bodies ? 4 / 3 : 0) + 512);
          continue;
        }
        void this.pump(s);
      }
    }
  }

  /** Writes a large delivery as fragments (or binary parts) read from the store as the connection drains; false if its body cannot be read. */
  private async stream(sub: Subscriber, entry: StoredDelivery): Promise<boolean> {
    const parts = await this.streams.open(entry, sub.binary);
    if (!parts) return false;
    try {
      for await (const part of parts) {
        await this.flow.room(sub, part.data.length);
        if (!sub.open) break;
        if (!sub.fragmenting) {
          // The delivery counts as sent from its first fragment (a reconnect resumes after the last acked one).
          if (entry.seq <= sub.sent) break;
          sub.fragmenting = true;
          sub.sent = entry.seq;
          sub.unacked.push(entry.seq);
        }
        this.flow.write(sub, part.data, { fragment: { fin: part.fin } });
      }
    } catch {
      // The body failed part-way (damaged, or pruned meanwhile): cut the connection rather than
      // end the message with wrong bytes; the subscriber resumes by seq.
      sub.ws.terminate();
    } finally {
      if (sub.fragmenting) this.flow.flushDeferred(sub);
    }
    return true;
  }

  /** Sends every delivery after `sub.sent`, in seq order, within the ack window and the bound. */
  private async pump(sub: Subscriber): Promise<void> {
    if (sub.pumping) return;
    sub.pumping = true;
    try {
      while (sub.open && sub.unacked.length < this.window) {
        const next = first(this.store.after(sub.sent, sub.channel));
        if (!next) {
          if (!sub.caughtUp) {
            sub.caughtUp = true;
            this.flow.write(sub, Buffer.from(JSON.stringify({ type: 'caught-up', lastSeq: this.lastSeqFor(sub) } satisfies ServerMessage)));
          }
          break;
        }
        let msg: Buffer;
        try {
          if (sub.bodies && next.size > STREAM_BODY_BYTES && (await this.stream(sub, next))) continue;
          if (sub.bodies) this.messages.readAhead(smallAfter(this.store.after(next.seq, sub.channel), READ_AHEAD));
          msg = await this.messages.get(next, sub.bodies);
        } catch {
          // The store did not answer in time (JetStream failing over): the subscriber waits,
          // connected, and the same delivery is read again, never sent without its body.
          await this.readAgainAfter(sub);
          continue;
        }
        // Flow control: wait until the connection has drained enough for this message.
        await this.flow.room(sub, msg.length);
        if (!sub.open || next.seq <= sub.sent) continue;
        sub.sent = next.seq;
        sub.unacked.push(next.seq);
        this.flow.write(sub, msg, { delivery: true });
      }
    } finally {
      sub.pumping = false;
      sub.stalled = false;
    }
  }

  /** Waits `readRetryMs` (or less, if the subscriber goes) before a failed read is tried again. */
  private readAgainAfter(sub: Subscriber): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, this.options.readRetryMs ?? 500);
      sub.ws.once('close', done);
      function done(): void {
        clearTimeout(t);
        sub.ws.off('close', done);
        resolve();
      }
    });
  }

  private broadcastForward(seq: number, attempt: ForwardAttempt, state: ForwardState | undefined): void {
    if (!this.some((s) => s.forwards)) return; // nobody to tell: no message to build
    const e = this.store.get(seq);
    if (!e) return;
    const subs = [this.byChannel.get(''), this.byChannel.get(e.channelKey)];
    const current = state ??
      e.summary.forward.find((f) => f.target === attempt.target) ?? { target: attempt.target, status: attempt.ok ? 'ok' : 'failed', attempts: 1 };
    const msg = Buffer.from(JSON.stringify({ type: 'forward', seq, attempt, state: current } satisfies ServerMessage));
    for (const set of subs) for (const s of set ?? []) if (s.forwards && seq <= s.sent) this.flow.write(s, msg);
  }

  /**
   * Sends delivery `seq` again to the forwarding subscribers (those that take bodies, and post its
   * channel to an app when they said which: `posts=`) of its
   * channel, and of every channel: those already sent it get a ReplayDeliveryMessage; those not
   * yet there will get it in order anyway. Resolves to how many there are (0: none connected).
   */
  async replay(seq: number): Promise<number> {
    const e = this.store.get(seq);
    if (!e) return 0;
    // Only those that post this channel to an app: one that said which channels it posts (`posts=`) and not this one would not.
    const subs = [...(this.byChannel.get('') ?? []), ...(this.byChannel.get(e.channelKey) ?? [])].filter(
      (s) => s.open && s.bodies && (s.posts === undefined || s.posts.has(e.summary.channel)),
    );
    const again = subs.filter((s) => seq <= s.sent);
    if (again.length > 0) {
      const msg = await this.messages.replay(e, true);
      for (const s of again) this.flow.write(s, msg, { delivery: true });
    }
    return subs.length;
  }

  /** Closes the streams opened with the token of channel `name` (it was deleted); they get 401 on reconnect. */
  revoke(name: string): void {
    for (const s of this.subs) if (s.scope.kind === 'channel' && s.scope.channel === name) s.ws.close(1008, 'channel deleted');
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

/** Up to `n` of `entries` whose body goes in one message (not as fragments); no summary is built for this. */
function* smallAfter(entries: Iterable<StoredDelivery>, n: number): Generator<StoredDelivery> {
  for (const e of entries) {
    if (n-- <= 0) return;
    if (e.size <= STREAM_BODY_BYTES) yield e;
  }
}

function first<T>(items: Iterable<T>): T | undefined {
  for (const x of items) return x;
  return undefined;
}
