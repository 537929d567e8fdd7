// The page's live feed: Server-Sent Events from the store's own events (the ones the WebSocket
// hub follows), scoped to what the session's token sees. A reconnect resumes after the last seq
// it got (EventSource sends it back as Last-Event-ID, or ?since=). A reader that stops reading is
// cut off once 1 MiB waits for it; it reconnects and resumes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RelayDeliverySummary } from '../../../src/core/relay/protocol';
import { sees, type Scope } from '../access/scope';
import type { RelayStore, StoredDelivery } from '../store/storeTypes';

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

/** Where a (re)connecting stream starts: after Last-Event-ID, else ?since=, else now. */
export function resumeFrom(req: IncomingMessage, url: URL, lastSeq: number): number {
  const given = req.headers['last-event-id'] ?? url.searchParams.get('since');
  const n = typeof given === 'string' && /^\d{1,15}$/.test(given) ? Number(given) : lastSeq;
  return Math.min(n, lastSeq);
}
