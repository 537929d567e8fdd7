// Byte-exact local forwarding of a delivery received over the WebSocket (the `forward` command
// and the editor): original body bytes and headers minus hop-by-hop ones, with a total deadline
// (a target that trickles its answer cannot hold the forward) and a cap on the answer read.
import { request, type Dispatcher } from 'undici';
import { connectionListed, isHopByHop, type DeliveryMessage } from '../../src/core/relay/protocol';

/** Default total deadline of one forward, like the service's delivery time-out. */
export const DEFAULT_FORWARD_TIMEOUT_MS = 10_000;
/** Answer bytes read at most; past it the status decides and the connection is dropped. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface ForwardResult {
  ok: boolean;
  status?: number;
  error?: string;
  durationMs: number;
}

export interface ForwardOptions {
  dispatcher?: Dispatcher;
  /** Total deadline, from sending to the answer's last byte (default 10 s). */
  timeoutMs?: number;
  /** Aborts the forward at once (e.g. the process is stopping); the result is a failure. */
  signal?: AbortSignal;
}

/** Sends one delivery to `to`; never throws for network or HTTP failures (they are results). */
export async function forwardDelivery(delivery: DeliveryMessage['delivery'], to: string, options: ForwardOptions = {}): Promise<ForwardResult> {
  if (delivery.bodyBase64 === undefined || delivery.headers === undefined) {
    throw new TypeError('forwardDelivery: the delivery has no body (subscribe with bodies: true)');
  }
  const headers: string[] = [];
  const listed = connectionListed(Object.entries(delivery.headers));
  for (const [k, v] of Object.entries(delivery.headers)) if (!isHopByHop(k) && !listed.has(k.toLowerCase())) headers.push(k, v);
  const body = Buffer.from(delivery.bodyBase64, 'base64');
  const timeoutMs = options.timeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS;
  const t0 = performance.now();
  const cut = new AbortController();
  const deadline = setTimeout(() => cut.abort(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
  const onStop = () => cut.abort(new Error('stopped'));
  if (options.signal?.aborted) onStop();
  options.signal?.addEventListener('abort', onStop, { once: true });
  try {
    const res = await request(to, { method: 'POST', headers, body, dispatcher: options.dispatcher, signal: cut.signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    let read = 0;
    for await (const chunk of res.body) {
      read += (chunk as Buffer).length;
      if (read > MAX_ANSWER_BYTES) {
        res.body.destroy();
        break;
      }
    }
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    return { ok, status: res.statusCode, durationMs: performance.now() - t0, ...(ok ? {} : { error: `HTTP ${res.statusCode}` }) };
  } catch (err) {
    const reason = cut.signal.aborted && cut.signal.reason instanceof Error ? cut.signal.reason : (err as Error);
    return { ok: false, error: reason.message, durationMs: performance.now() - t0 };
  } finally {
    clearTimeout(deadline);
    options.signal?.removeEventListener('abort', onStop);
  }
}
