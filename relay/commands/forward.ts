// `service-hooks forward`: subscribes to a (remote) relay and forwards each delivery byte-exact
// to a local URL; acknowledges by seq only after the local app answered 2xx, so nothing is lost.
import { readFileSync } from 'node:fs';
import { tokenFilePath } from '../../src/core/relay/ready';
import { resolve } from 'node:path';
import { defineCommand, positiveDuration } from '../cli/args';
import { EXIT, UsageError } from '../cli/io';
import { DEFAULT_FORWARD_TIMEOUT_MS, forwardDelivery } from '../client/forward';
import { subscribe } from '../client/subscribe';

/** The relay's channel names (relay/server/channels.ts CHANNEL_RE; not imported: this bundle stays small). */
const CHANNEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const help = `Usage: service-hooks forward --relay ws(s)://HOST:PORT (--token T | --data DIR) --to URL [--channel C] [--since SEQ] [--timeout D]

Subscribes to a relay's WebSocket and forwards every verified or unverified delivery, byte-exact
(original body and headers minus hop-by-hop), to URL. A delivery is acknowledged only once URL
answered 2xx; until then it is retried with backoff. After a disconnect the forwarder reconnects
with backoff and resumes from the last acknowledged seq. Rejected deliveries are skipped.

Options:
  --relay URL     the relay's address: ws(s)://HOST:PORT, or the http(s):// address the relay
                  prints (used as ws(s)://); /ws is added when missing
  --token T       the relay token (or env SERVICE_HOOKS_RELAY_TOKEN); sent in a header, never the URL
  --data DIR      a relay on this machine: read its token from DIR/token (the relay's --data)
  --to URL        local target, e.g. http://127.0.0.1:3000/webhook
  --channel C     only this channel
  --since SEQ     start after SEQ (default: only new deliveries)
  --timeout D     total deadline of one forward to URL, from sending to the answer's last byte,
                  e.g. 10s, 500ms (default 10s); a slower answer counts as a failure and is retried

SIGINT or SIGTERM stops at once (exit 0): a forward in flight is cut off and stays
unacknowledged, so the relay sends it again at the next start. A relay that refuses the token
(HTTP 401 or 403) stops it with exit 1: retrying would not help.
`;

/** ws(s)://… as given; http(s)://… (the address `relay` prints) as ws(s)://…; else undefined. */
export function webSocketUrl(given: string): string | undefined {
  const m = /^(wss?|https?):\/\/\S+$/.exec(given);
  if (!m || !URL.canParse(given)) return undefined;
  return m[1] === 'http' || m[1] === 'https' ? given.replace(/^http/, 'ws') : given;
}

/** The token of a relay on this machine, from its --data folder. */
function tokenIn(data: string | undefined, cwd: string): string | undefined {
  if (data === undefined) return undefined;
  const file = tokenFilePath(resolve(cwd, data));
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    throw new UsageError(`--data: cannot read the relay token in ${file}`);
  }
}

export default defineCommand({
  help,
  options: {
    relay: { type: 'string' },
    token: { type: 'string' },
    data: { type: 'string' },
    to: { type: 'string' },
    channel: { type: 'string' },
    since: { type: 'string' },
    timeout: { type: 'string' },
  },
  async run({ values }, io) {
    const token = values.token ?? io.env.SERVICE_HOOKS_RELAY_TOKEN ?? tokenIn(values.data, io.cwd);
    if (!values.relay) throw new UsageError('--relay ws(s)://HOST:PORT is required');
    const relayUrl = webSocketUrl(values.relay);
    if (!relayUrl) throw new UsageError(`--relay must be a ws(s):// or http(s):// URL, got '${values.relay}'`);
    if (values.channel !== undefined && !CHANNEL_NAME.test(values.channel)) {
      throw new UsageError(`--channel must be a channel name (letters, digits, '.', '_', '-'; at most 64), got '${values.channel}'`);
    }
    if (!token) throw new UsageError('--token is required (or SERVICE_HOOKS_RELAY_TOKEN, or --data DIR of a relay on this machine)');
    if (!values.to || !/^https?:\/\//.test(values.to)) throw new UsageError('--to http(s)://… is required');
    const since = values.since === undefined ? undefined : Number(values.since);
    if (since !== undefined && (!Number.isInteger(since) || since < 0)) throw new UsageError('--since must be a non-negative integer');
    const timeoutMs = values.timeout === undefined ? DEFAULT_FORWARD_TIMEOUT_MS : positiveDuration(values.timeout, '--timeout');
    const to = values.to;
    let retryWake: (() => void) | undefined;
    const stop = new AbortController();
    io.stopSignal.addEventListener('abort', () => stop.abort(), { once: true });
    let refused: number | undefined;
    let refusedWhy = '';
    const sub = subscribe({
      url: relayUrl,
      token,
      since,
      channel: values.channel,
      onState: (s) => {
        if (s.state === 'open') io.stderr.write(`forward: connected (relay at seq ${s.lastSeq})\n`);
        else if (s.state === 'reconnecting' && (s.refused === 401 || s.refused === 403)) {
          refused = s.refused;
          refusedWhy = s.reason;
          stop.abort();
        } else if (s.state === 'reconnecting') io.stderr.write(`forward: ${s.reason}; reconnecting in ${s.delayMs} ms\n`);
      },
      onDelivery: async (d) => {
        if (d.verification === 'rejected') {
          io.stdout.write(`#${d.seq} ${d.channel} skipped (rejected: ${d.reason ?? 'bad signature'})\n`);
          return;
        }
        for (let attempt = 1; ; attempt++) {
          const r = await forwardDelivery(d, to, { timeoutMs, signal: io.stopSignal });
          if (io.stopSignal.aborted) throw new Error('stopping');
          io.stdout.write(`#${d.seq} ${d.channel} ${d.event ?? '-'} → ${r.ok ? r.status : `failed (${r.error})`} ${r.durationMs.toFixed(1)} ms\n`);
          if (r.ok) return { forwarded: { status: r.status! } };
          if (io.stopSignal.aborted) throw new Error('stopping');
          const wait = Math.min(30_000, 250 * 2 ** Math.min(attempt, 7));
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, wait);
            retryWake = () => {
              clearTimeout(t);
              resolve();
            };
          });
          retryWake = undefined;
          if (io.stopSignal.aborted) throw new Error('stopping');
        }
      },
    });
    await new Promise<void>((r) => {
      if (stop.signal.aborted) r();
      else stop.signal.addEventListener('abort', () => r(), { once: true });
    });
    retryWake?.();
    sub.close();
    await sub.closed;
    if (refused !== undefined) {
      const limited = /this token is limited to channel '[^']*'/.exec(refusedWhy)?.[0];
      const why =
        refused === 401
          ? 'the token is not accepted (wrong, or its channel was deleted); pass the relay token or a channel token with --token or SERVICE_HOOKS_RELAY_TOKEN'
          : limited
            ? `${limited}: --channel asks for another (drop --channel, or pass the admin token)`
            : 'the Host or Origin is not allowed (see the relay\'s --allow-host)';
      io.stderr.write(`service-hooks forward: the relay refused the connection (HTTP ${refused}): ${why}\n`);
      return EXIT.failure;
    }
    io.stderr.write(sub.lastSeq >= 0 ? `forward: stopped after seq ${sub.lastSeq}\n` : 'forward: stopped\n');
    return EXIT.ok;
  },
});
