// The live feed: /page/events (Server-Sent Events) read with fetch, not EventSource, because
// every request of the page carries the tab's key of the session in a header, which EventSource
// cannot send. After a disconnect it reconnects and resumes after the last seq it got (?since=).
import { sessionHeaders } from './api';
import { restPath } from '../../src/core/relay/restPaths';

/** Wait before reconnecting after the stream ended or failed. */
const RETRY_MS = 2000;

export type FeedState = { state: 'live' } | { state: 'reconnecting' } | { state: 'signed-out' } | { state: 'refused'; reason: string };

export interface FeedHandlers {
  event(type: string, data: string): void;
  state(s: FeedState): void;
}

export interface Feed {
  close(): void;
}

export function openFeed(since: number, on: FeedHandlers): Feed {
  let last = since;
  let closed = false;
  let abort = new AbortController();
  const block = (text: string) => {
    let type = 'message';
    const data: string[] = [];
    for (const line of text.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') type = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id' && /^\d+$/.test(value)) last = Number(value);
    }
    if (data.length) on.event(type, data.join('\n'));
  };
  const once = async (): Promise<boolean> => {
    abort = new AbortController();
    const res = await fetch(`${restPath('pageEvents')}?since=${last}`, {
      headers: sessionHeaders(),
      credentials: 'same-origin',
      cache: 'no-store',
      signal: abort.signal,
    });
    if (res.status === 401) return (on.state({ state: 'signed-out' }), false);
    if (!res.ok || !res.body) {
      const answer = (await res.json().catch(() => ({}))) as { error?: string };
      return (on.state({ state: 'refused', reason: answer.error ?? `HTTP ${res.status}` }), false);
    }
    on.state({ state: 'live' });
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return true;
      buf += value.replace(/\r\n?/g, '\n');
      for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
        block(buf.slice(0, i));
        buf = buf.slice(i + 2);
      }
    }
  };
  void (async () => {
    while (!closed) {
      const again = await once().catch(() => true);
      if (!again || closed) return;
      on.state({ state: 'reconnecting' });
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  })();
  return {
    close() {
      closed = true;
      abort.abort();
    },
  };
}
