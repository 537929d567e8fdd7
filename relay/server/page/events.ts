// The page's live feed: Server-Sent Events from the store's own events (the ones the WebSocket
// hub follows), scoped to what the session's token sees. A reconnect resumes after the last seq
// it got (?since=, as the page sends it, or Last-Event-ID). A reader that stops reading is
// cut off once 1 MiB waits for it; it reconnects and resumes. A token holds at most
// MAX_STREAMS_PER_TOKEN of them (LiveStreams).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RelayDeliverySummary } from '../../../src/core/relay/protocol';
import { sendError } from '../../shared/http';
import { sees, type Scope } from '../access/scope';
import type { RelayStore, StoredDelivery } from '../base/storeTypes';

const MAX_QUEUED = 1024 * 1024;
/** Deliveries sent on (re)connect at most; older ones are paged with before=. */
const MAX_REPLAY = 500;
const HEARTBEAT_MS = 25_000;

export interface EventStream {
  scope: Scope;
  /** A new delivery (the store's `delivery` event, fanned out by ./index.ts: one listener for all streams). */
  delivery(e: StoredDelivery): void;
  /** A forward attempt was recorded for delivery `e`. */
  update(e: StoredDelivery): void;
  end(): void;
}

export function openEvents(req: IncomingMessage, res: ServerResponse, store: RelayStore, scope: Scope, since: number): EventStream {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
  res.write(': connected\n\n'); // the headers go out now: the browser's EventSource opens
  // A channel token's own identity (name@generation), never its name: an earlier channel of that
  // name (implicit, deleted, a former --config one) is not its to see (../access/scope.ts).
  const channel = scope.kind === 'channel' ? scope.key : undefined;
  const send = (event: string, summary: RelayDeliverySummary, id?: number) => {
    if (res.writableLength > MAX_QUEUED) return end();
    res.write(`event: ${event}\n${id !== undefined ? `id: ${id}\n` : ''}data: ${JSON.stringify(summary)}\n\n`);
  };
  const missed = [...store.after(since, channel)];
  for (const e of missed.slice(-MAX_REPLAY)) send('delivery', e.summary, e.seq);
  const beat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
  beat.unref();
  let ended = false;
  function end() {
    if (ended) return;
    ended = true;
    clearInterval(beat);
    res.end();
  }
  req.on('close', end);
  res.on('close', end);
  return {
    scope,
    delivery: (e) => void (!ended && sees(scope, e.channelKey) && send('delivery', e.summary, e.seq)),
    update: (e) => void (!ended && sees(scope, e.channelKey) && send('update', e.summary)),
    end,
  };
}

/** Live streams (/page/events) one token holds at most; past it a new one is refused (429), never another token's ended. */
export const MAX_STREAMS_PER_TOKEN = 32;
/** Live streams the relay holds at most (all tokens); past it a new one is refused (503). */
export const MAX_STREAMS = 1000;

/** Who a stream belongs to: its session and the session's token. */
export interface StreamOwner {
  id: string;
  token: string;
}

/** The page's live streams, each with its owner; one store listener for all of them (one each would be up to MAX_STREAMS). */
export class LiveStreams {
  private readonly streams = new Map<EventStream, StreamOwner>();
  private readonly onDelivery = (e: StoredDelivery) => this.streams.forEach((_, stream) => stream.delivery(e));
  private readonly onForward = (seq: number) => {
    const e = this.streams.size > 0 ? this.store.get(seq) : undefined;
    if (e) this.streams.forEach((_, stream) => stream.update(e));
  };

  constructor(private readonly store: RelayStore) {
    store.on('delivery', this.onDelivery);
    store.on('forward', this.onForward);
  }

  /** Opens a stream for `owner`, or answers 429 (its token holds MAX_STREAMS_PER_TOKEN) or 503 (the relay MAX_STREAMS). */
  open(req: IncomingMessage, res: ServerResponse, scope: Scope, since: number, owner: StreamOwner): void {
    const own = [...this.streams.values()].filter((o) => o.token === owner.token).length;
    if (own >= MAX_STREAMS_PER_TOKEN)
      return sendError(res, 429, `this token already has ${MAX_STREAMS_PER_TOKEN} live views of the page open; close some tabs and reload`);
    if (this.streams.size >= MAX_STREAMS) return sendError(res, 503, 'the relay has too many live views of the page open; try again later');
    const stream = openEvents(req, res, this.store, scope, since);
    this.streams.set(stream, { id: owner.id, token: owner.token });
    res.on('close', () => this.streams.delete(stream));
  }

  endWhere(pred: (owner: StreamOwner) => boolean): void {
    for (const [stream, owner] of this.streams) if (pred(owner)) stream.end();
  }

  close(): void {
    this.store.off('delivery', this.onDelivery);
    this.store.off('forward', this.onForward);
    for (const stream of this.streams.keys()) stream.end();
  }
}

/** Where a (re)connecting stream starts: after Last-Event-ID, else ?since=, else now. */
export function resumeFrom(req: IncomingMessage, url: URL, lastSeq: number): number {
  const given = req.headers['last-event-id'] ?? url.searchParams.get('since');
  const n = typeof given === 'string' && /^\d{1,15}$/.test(given) ? Number(given) : lastSeq;
  return Math.min(n, lastSeq);
}
