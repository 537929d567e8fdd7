// `service-hooks forward`: subscribes to a (remote) relay and forwards each delivery byte-exact
// to a local URL; acknowledges by seq only after the local app answered 2xx, so nothing is lost.
import { parse, positiveDuration } from '../cli/args';
import { EXIT, UsageError, type Command } from '../cli/io';
import { DEFAULT_FORWARD_TIMEOUT_MS, forwardDelivery } from '../client/forward';
import { subscribe } from '../client/subscribe';

const help = `Usage: service-hooks forward --relay ws(s)://HOST:PORT --token T --to URL [--channel C] [--since SEQ] [--timeout D]

Subscribes to a relay's WebSocket and forwards every verified or unverified delivery, byte-exact
(original body and headers minus hop-by-hop), to URL. A delivery is acknowledged only once URL
answered 2xx; until then it is retried with backoff. After a disconnect the forwarder reconnects
with backoff and resumes from the last acknowledged seq. Rejected deliveries are skipped.

Options:
  --relay URL     the relay's WebSocket address (ws:// or wss://; /ws is added when missing)
  --token T       the relay token (or env SERVICE_HOOKS_RELAY_TOKEN); sent in a header, never the URL
  --to URL        local target, e.g. http://127.0.0.1:3000/webhook
  --channel C     only this channel
  --since SEQ     start after SEQ (default: only new deliveries)
  --timeout D     total deadline of one forward to URL, from sending to the answer's last byte,
                  e.g. 10s, 500ms (default 10s); a slower answer counts as a failure and is retried

SIGINT or SIGTERM stops at once: a forward in flight is cut off and stays unacknowledged, so
the relay sends it again at the next start.
`;

const command: Command = {
  help,
  async run(argv, io) {
    const { values } = parse(
      argv,
      {
        relay: { type: 'string' },
        token: { type: 'string' },
        to: { type: 'string' },
        channel: { type: 'string' },
        since: { type: 'string' },
        timeout: { type: 'string' },
      },
      false,
    );
    const token = values.token ?? io.env.SERVICE_HOOKS_RELAY_TOKEN;
    if (!values.relay || !/^wss?:\/\//.test(values.relay)) throw new UsageError('--relay ws(s)://HOST:PORT is required');
    if (!token) throw new UsageError('--token is required');
    if (!values.to || !/^https?:\/\//.test(values.to)) throw new UsageError('--to http(s)://… is required');
    const since = values.since === undefined ? undefined : Number(values.since);
    if (since !== undefined && (!Number.isInteger(since) || since < 0)) throw new UsageError('--since must be a non-negative integer');
    const timeoutMs = values.timeout === undefined ? DEFAULT_FORWARD_TIMEOUT_MS : positiveDuration(values.timeout, '--timeout');
    const to = values.to;
    let retryWake: (() => void) | undefined;
    const sub = subscribe({
      url: values.relay,
      token,
      since,
      channel: values.channel,
      onState: (s) => {
        if (s.state === 'open') io.stderr.write(`forward: connected (relay at seq ${s.lastSeq})\n`);
        else if (s.state === 'reconnecting') io.stderr.write(`forward: ${s.reason}; reconnecting in ${s.delayMs} ms\n`);
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
      if (io.stopSignal.aborted) r();
      else io.stopSignal.addEventListener('abort', () => r(), { once: true });
    });
    retryWake?.();
    sub.close();
    await sub.closed;
    io.stderr.write(`forward: stopped after seq ${sub.lastSeq}\n`);
    return EXIT.ok;
  },
};
export default command;
