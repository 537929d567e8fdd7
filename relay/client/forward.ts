// Byte-exact local forwarding of a delivery received over the WebSocket (the `forward` command
// and the editor): original body bytes and headers minus hop-by-hop ones.
import { request, type Dispatcher } from 'undici';
import { connectionListed, isHopByHop, type DeliveryMessage } from '../../src/core/relay/protocol';

export interface ForwardResult {
  ok: boolean;
  status?: number;
  error?: string;
  durationMs: number;
}

export async function forwardDelivery(
  delivery: DeliveryMessage['delivery'],
  to: string,
  options: { dispatcher?: Dispatcher; timeoutMs?: number } = {},
): Promise<ForwardResult> {
  if (delivery.bodyBase64 === undefined || delivery.headers === undefined) {
    throw new TypeError('forwardDelivery: the delivery has no body (subscribe with bodies: true)');
  }
  const headers: string[] = [];
  const listed = connectionListed(Object.entries(delivery.headers));
  for (const [k, v] of Object.entries(delivery.headers)) if (!isHopByHop(k) && !listed.has(k.toLowerCase())) headers.push(k, v);
  const body = Buffer.from(delivery.bodyBase64, 'base64');
  const t0 = performance.now();
  try {
    const res = await request(to, {
      method: 'POST',
      headers,
      body,
      dispatcher: options.dispatcher,
      headersTimeout: options.timeoutMs ?? 30_000,
      bodyTimeout: options.timeoutMs ?? 30_000,
    });
    await res.body.dump();
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    return { ok, status: res.statusCode, durationMs: performance.now() - t0, ...(ok ? {} : { error: `HTTP ${res.statusCode}` }) };
  } catch (err) {
    return { ok: false, error: (err as Error).message, durationMs: performance.now() - t0 };
  }
}
