// A delivery received over the WebSocket, forwarded byte-exact to a local app: THE forward attempt
// (./attempt.ts postOnce: original body bytes, headers minus hop-by-hop, total deadline, 64 KiB
// answer cap) applied to a DeliveryMessage, over one keep-alive pool per process.
import { Agent, type Dispatcher } from 'undici';
import type { DeliveryMessage } from '../../src/core/relay/protocol';
import { DEFAULT_FORWARD_TIMEOUT_MS, forwardHeaders, postOnce } from '../shared/attempt';
import { deliveryBody } from './serverMessage';

export { DEFAULT_FORWARD_TIMEOUT_MS } from '../shared/attempt';

export interface ForwardResult {
  ok: boolean;
  status?: number;
  /** `CODE: words` or `HTTP 500`; absent when ok. */
  error?: string;
  /** The app's Retry-After header on a non-2xx answer. */
  retryAfter?: string;
  durationMs: number;
}

export interface ForwardOptions {
  dispatcher?: Dispatcher;
  /** Total deadline, from sending to the answer's last byte (default 10 s). */
  timeoutMs?: number;
  /** Aborts the forward at once (e.g. the process is stopping); the result is a failure. */
  signal?: AbortSignal;
  /** Sign the body again with this secret instead of sending the signature received (a replay re-signed). */
  resignSecret?: string;
}

let shared: Agent | undefined;

/** Sends one delivery to `to`; never throws for network or HTTP failures (they are results). */
export async function forwardDelivery(delivery: DeliveryMessage['delivery'], to: string, options: ForwardOptions = {}): Promise<ForwardResult> {
  const body = deliveryBody(delivery);
  if (body === undefined || delivery.headers === undefined) {
    throw new TypeError('forwardDelivery: the delivery has no body (subscribe with bodies: true)');
  }
  const headers = forwardHeaders(Object.entries(delivery.headers), options.resignSecret, body);
  const dispatcher = options.dispatcher ?? (shared ??= new Agent({ keepAliveTimeout: 4_000 }));
  const a = await postOnce(dispatcher, to, headers, body, { timeoutMs: options.timeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS, signal: options.signal });
  return {
    ok: a.ok,
    durationMs: a.durationMs,
    ...(a.status !== undefined ? { status: a.status } : {}),
    ...(a.error !== undefined ? { error: a.error } : {}),
    ...(a.retryAfter !== undefined ? { retryAfter: a.retryAfter } : {}),
  };
}
