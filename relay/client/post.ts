// One POST the editor makes as the service would (Send Sample Event…, Add Webhook's signed check
// of a secret against a relay channel), with the trust of its connection to the relay: `ca` (the
// editor passes NODE_EXTRA_CA_CERTS's CA explicitly, as for the WebSocket: the extension host's
// global fetch uses a certificate store of its own). Failures are values carrying the socket's
// error code, so the caller can say what to do (an untrusted CA) instead of "fetch failed".
import { Agent, request } from 'undici';

export type PostAnswer = { ok: true; status: number } | { ok: false; error: string; code?: string };

export async function postAs(
  url: string,
  headers: Record<string, string>,
  body: Uint8Array,
  options: { ca?: (string | Buffer)[]; timeoutMs?: number } = {},
): Promise<PostAnswer> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const agent = new Agent({ connect: options.ca ? { ca: options.ca } : {} });
  try {
    const res = await request(url, {
      method: 'POST',
      headers,
      body,
      dispatcher: agent,
      signal: AbortSignal.timeout(timeoutMs),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    await res.body.dump();
    return { ok: true, status: res.statusCode };
  } catch (err) {
    const e = err as Error & { code?: unknown; cause?: { code?: unknown; message?: string } };
    const raw = typeof e.code === 'string' ? e.code : typeof e.cause?.code === 'string' ? e.cause.code : undefined;
    const timedOut = e.name === 'TimeoutError';
    return {
      ok: false,
      error: timedOut ? `no answer within ${timeoutMs} ms` : (e.cause?.message ?? e.message),
      ...(timedOut ? { code: 'ETIMEDOUT' } : raw ? { code: raw } : {}),
    };
  } finally {
    void agent.close().catch(() => undefined);
  }
}
