// `service-hooks forward`: subscribes to a (remote) relay and forwards each delivery byte-exact
// to a local URL with the shared forward loop (relay/client/forwardEngine.ts: the forwarding
// rules, a retrying set, a pause while the app is unreachable), keeping its resume point and the
// retrying set in a 0600 state file (relay/cli/forwardState.ts).
import { readFileSync } from 'node:fs';
import { tokenFilePath } from '../../src/core/relay/ready';
import { resolve } from 'node:path';
import { defineCommand, parseSchedule, positiveDuration, type ParsedValues } from '../cli/args';
import { ForwardOutput, outputMode, type LineSource } from '../cli/forwardOutput';
import { EXIT, UsageError, type CliIO } from '../cli/io';
import { DEFAULT_FORWARD_TIMEOUT_MS } from '../client/forward';
import { retrySchedule } from '../../src/core/relay/forwardPolicy';
import { escapeControls } from '../../src/core/text/controls';
import { routerOf } from '../cli/forwardRoutes';
import { forwardChannel, relayLabel, type ForwardArgs, type ForwardRun } from '../cli/forwardChannel';
import { Agent } from 'undici';
import { RelayApi, RelayApiError } from '../client/api';
import { MAX_CONCURRENCY } from '../client/subscribe';
import { ForwardTally } from '../cli/forwardSummary';
import { EVENT_TYPES } from '../../src/core/events/types';
import { appAttempt, relayCas, untrustedRelay } from '../cli/forwardTls';
import { InteractiveView } from '../cli/forwardInteractive';

/** The relay's channel names (relay/server/channels/channels.ts CHANNEL_RE; not imported: this bundle stays small). */
const CHANNEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const help = `Usage: service-hooks forward --relay ws(s)://HOST:PORT[,…] (--token T | --data DIR) (--to URL | --route EVENT=URL …)
         [--events E,… | --exclude-events E,…] [--channel C,… | --channel '*'] [--ca FILE | --skip-verify]
         [--output text|json|quiet|interactive] [--since SEQ] [--timeout D] [--retry-schedule L] [--state FILE] [--parallel N]

Subscribes to a relay's WebSocket and forwards every verified or unverified delivery, byte-exact
(original body and headers minus hop-by-hop), to URL, one line per delivery. What the app answers
decides (the relay records it):
  2xx                      delivered
  other 4xx                not retried (service-hooks replay SEQ sends it again)
  5xx, 408, 429, time-out  retried 1, 5 and 30 minutes later (Retry-After honoured) while the
                           later deliveries go on
  nothing listens at URL   deliveries wait, in order, until the app's port answers again
After a disconnect the forwarder reconnects as soon as the relay's port answers again (probed
every 200 ms; with backoff while the port answers but the connection fails) and resumes from
the last handled seq; with several --relay addresses it goes on at once at the next that
answers. In text output every line starts with the time (UTC) and the relay address (host:port)
and names the channel.
Rejected deliveries are skipped. A delivery the relay sends again (\`service-hooks replay SEQ\` of one
this forwarder took) is posted to URL once more, printed with "(replay)", without moving the
resume point. The last handled seq and the deliveries still being retried are
kept in a 0600 state file per relay identity (which the relay names, the same at each of its
instances) and per what the token reads (the admin token, with its --channel; or a channel
token's channel), so a restart misses nothing and repeats nothing, at any address of the relay:
$XDG_STATE_HOME/service-hooks/forward/ (default ~/.local/state/service-hooks/forward/). The file
records both; one written for another scope or relay is refused, and so is one of an older
version that records no scope until --since says where to start, except the one it kept for
--channel C, which is taken over. An older version's file for the address connected to (they
were per address) is taken over; one for another --relay address is refused until --since or
--relay (that address first) says which. A resume point the relay never
reached (its data was reset) stops forward: --since 0 takes every delivery it holds. The file
is written while the next deliveries go on: after a crash (not a stop), those handled during
its last write are posted again.

Options:
  --relay URL     the relay's address: ws(s)://HOST:PORT, or the http(s):// address the relay
                  prints (used as ws(s)://); /ws is added when missing. Several addresses of one
                  relay (its instances, a balancer): repeat --relay or separate them with commas;
                  tried in order, failed over at once; each must name the same relay identity,
                  else forward exits 1 naming both
  --token T       the relay token (or env SERVICE_HOOKS_RELAY_TOKEN); sent in a header, never the URL
  --data DIR      a relay on this machine: read its token from DIR/token (the relay's --data)
  --to URL        local target, e.g. http://127.0.0.1:3000/webhook (the default of --route)
  --route EVENT=URL  deliveries of EVENT go to URL (repeatable; '*'=URL for the other events);
                  with several apps, one that is unreachable holds back only its own deliveries
  --events E,...  post only these event types (${EVENT_TYPES.join(', ')})
  --exclude-events E,...  post all but these event types
                  A delivery left out (by these, or with no route and no --to) is acknowledged
                  and recorded at the relay as skipped by the filter (deliveries shows it).
  --channel C     only this channel; C,D,... several in one process, each with its own resume
                  point; '*' every channel the token reads (the admin token: each channel listed
                  at the start). A channel token given another channel is a usage error.
  --ca FILE       trust this CA (PEM) for https targets and wss:// relay addresses, beside the
                  usual roots
  --skip-verify   check no certificate of an https target: only when every target is on this
                  machine (127.0.0.1, ::1, localhost); refused otherwise
  --output M      interactive (the default on a terminal that is not dumb): a live list of the
                  newest deliveries; ↑/↓ select, Enter headers and body, r replay, o open the
                  relay's page, q quit; a terminal that goes away stops the list, not forwarding.
                  text (the default otherwise): one line per delivery; json: one JSON object per outcome on
                  stdout (seq, channel, event, deliveryId, target, outcome, status, error,
                  attempt, durationMs, willRetry) and nothing else there; quiet: only what needs
                  a person (refused or given up, an app unreachable)
  --since SEQ     start after SEQ (default: after the last delivery handled, from the state
                  file; the first time, only new deliveries)
  --retry-schedule L  waits before each attempt of a delivery the app answered 5xx, 408 or 429
                  (or not in time), e.g. 0,1m,5m,30m (default: the service's, 4 attempts)
  --state FILE    the state file to use instead of the default one (refused when it was
                  written for another token's scope)
  --timeout D     total deadline of one forward to URL, from sending to the answer's last byte,
                  e.g. 10s, 500ms (default 10s); a slower answer is retried
  --parallel N    post up to N deliveries at once, 1 to ${MAX_CONCURRENCY} (default 1: one at a time, in seq
                  order, each after the app answered the one before). Above 1 they are sent in seq
                  order but the app may get and finish them in any order; the resume point moves
                  only past deliveries whose older ones are all handled, so a crash skips
                  nothing (a delivery handled while an older one was in flight is posted again)

SIGINT or SIGTERM stops at once (exit 0) and prints one line: posted, 2xx, refused, retrying,
skipped by the filter. A forward in flight is cut off and stays unacknowledged, so the relay
sends it again at the next start. A relay that refuses the token
(HTTP 401 or 403), or whose TLS certificate is not trusted here (pass --ca or set NODE_EXTRA_CA_CERTS),
stops it with exit 1: retrying would not help. With several --relay addresses, one whose
certificate is not trusted is passed over (with that line) for the next that answers.
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

/** --channel a,b or '*': the names, each checked; '*' alone. */
function channelList(value: string): string[] {
  const names = value.split(',').map((n) => n.trim());
  if (names.includes('*')) {
    if (names.length > 1) throw new UsageError(`--channel '*' takes every channel the token reads: name no other beside it, got '${value}'`);
    return names;
  }
  for (const n of names) {
    if (!CHANNEL_NAME.test(n))
      throw new UsageError(`--channel must be a channel name (letters, digits, '.', '_', '-'; at most 64), a comma-separated list of them, or '*', got '${n}'`);
  }
  if (new Set(names).size !== names.length) throw new UsageError(`--channel names a channel twice: '${value}'`);
  return names;
}

/** --relay A --relay B,C: the addresses in order, each a ws(s):// URL, none twice. */
function relayList(given: string[] | undefined): string[] {
  const values = (given ?? []).flatMap((v) => v.split(',')).map((v) => v.trim());
  if (values.length === 0) throw new UsageError('--relay ws(s)://HOST:PORT is required');
  const urls = values.map((v) => {
    const url = webSocketUrl(v);
    if (!url) throw new UsageError(`--relay must be a ws(s):// or http(s):// URL, got '${v}' (several: repeat --relay, or separate them with commas)`);
    return url.replace(/\/ws\/?$|\/$/, '');
  });
  const twice = urls.find((u, i) => urls.indexOf(u) !== i);
  if (twice) throw new UsageError(`--relay names ${twice} twice`);
  return urls;
}

/** Checks the flags; throws UsageError with what is wrong. */
function parseArgs(values: ParsedValues<typeof options>, io: CliIO): ForwardArgs {
  const token = values.token ?? io.env.SERVICE_HOOKS_RELAY_TOKEN ?? tokenIn(values.data, io.cwd);
  const relayUrls = relayList(values.relay);
  const channels = values.channel === undefined ? undefined : channelList(values.channel);
  if (channels && channels.length > 1 && values.state !== undefined)
    throw new UsageError('--state names one file: it goes with one --channel (each channel keeps its own)');
  if (!token) throw new UsageError('--token is required (or SERVICE_HOOKS_RELAY_TOKEN, or --data DIR of a relay on this machine)');
  const { route, filtered, targets } = routerOf({ to: values.to, events: values.events, excludeEvents: values['exclude-events'], routes: values.route });
  const since = values.since === undefined ? undefined : Number(values.since);
  if (since !== undefined && (!Number.isInteger(since) || since < 0)) throw new UsageError('--since must be a non-negative integer');
  const timeoutMs = values.timeout === undefined ? DEFAULT_FORWARD_TIMEOUT_MS : positiveDuration(values.timeout, '--timeout');
  const schedule = retrySchedule(values['retry-schedule'] === undefined ? undefined : parseSchedule(values['retry-schedule']));
  const parallel = values.parallel === undefined ? 1 : Number(values.parallel);
  if (!/^\d+$/.test(values.parallel ?? '1') || parallel < 1 || parallel > MAX_CONCURRENCY) {
    throw new UsageError(`--parallel must be a whole number from 1 to ${MAX_CONCURRENCY}, got '${values.parallel}'`);
  }
  const https = targets.some((t) => /^https:/i.test(t));
  const wss = relayUrls.some((u) => u.startsWith('wss:'));
  if (values['skip-verify'] && values.ca !== undefined) throw new UsageError('--ca and --skip-verify: pass one (--skip-verify checks no certificate at all)');
  if (values['skip-verify'] && !https) throw new UsageError('--skip-verify is for https:// targets, and none is');
  if (values.ca !== undefined && !https && !wss) throw new UsageError('--ca is for https:// targets and wss:// relay addresses, and none is');
  const attempt = https ? appAttempt({ ca: values.ca, skipVerify: values['skip-verify'], cwd: io.cwd, targets, timeoutMs }) : undefined;
  const relayCa = wss && values.ca !== undefined ? relayCas(values.ca, io.cwd) : undefined;
  const output = outputMode(values.output, io);
  return { output, relayUrls, token, route, filtered, targets, channels, attempt, relayCa, since, timeoutMs, schedule, stateFile: values.state, parallel };
}

/**
 * The channels to forward: those of --channel, every channel the admin token reads for '*' (asked
 * of the --relay addresses in order until one answers), or the token's stream.
 */
async function channelsOf(a: ForwardArgs): Promise<(string | undefined)[]> {
  if (a.channels === undefined) return [undefined];
  if (!a.channels.includes('*')) return a.channels;
  for (const [i, url] of a.relayUrls.entries()) {
    try {
      return (await relayApi(a, url).listChannels()).map((c) => c.name);
    } catch (err) {
      if (err instanceof RelayApiError && err.status === 403) return [undefined]; // a channel token: its own channel's stream
      const untrusted = untrustedRelay(url, err);
      if (err instanceof RelayApiError || i === a.relayUrls.length - 1) throw untrusted ? new Error(untrusted, { cause: err }) : err; // the relay answered: another would say the same
    }
  }
  return [undefined]; // not reached: relayUrls is never empty
}

/** The relay's http(s) address, from its ws(s) one. */
const httpBase = (relayUrl: string) => relayUrl.replace(/^ws/, 'http').replace(/\/ws\/?$/, '');

/** The REST API at the relay address `url`, trusting --ca's CA for https as the WebSocket does. */
const relayApi = (a: ForwardArgs, url: string) =>
  new RelayApi({ baseUrl: httpBase(url), token: a.token, ...(a.relayCa ? { dispatcher: new Agent({ connect: { ca: a.relayCa } }) } : {}) });

function interactiveView(a: ForwardArgs, io: CliIO, quit: () => void): InteractiveView {
  const api = relayApi(a, a.relayUrls[0]!);
  return new InteractiveView({ io, api, pageUrl: `${httpBase(a.relayUrls[0]!)}/`, totalAttempts: a.schedule.length, quit });
}

async function forward(a: ForwardArgs, io: CliIO): Promise<number> {
  const stop = new AbortController();
  io.stopSignal.addEventListener('abort', () => stop.abort(), { once: true });
  let failure: { why: string; exit: number } | undefined;
  const tally = new ForwardTally();
  const view = a.output === 'interactive' ? interactiveView(a, io, () => stop.abort()) : undefined;
  const output = new ForwardOutput(a.output, io, a.schedule.length, relayLabel(a.relayUrls[0]!), view);
  /** The relay address of the last line: the summary names it too. */
  let last: LineSource | undefined;
  const run: ForwardRun = {
    stop: stop.signal,
    fail: (why, exit = EXIT.failure) => {
      failure ??= { why, exit };
      stop.abort();
    },
    onEvent: (e, from) => {
      tally.add(e);
      output.event(e, (last = from));
    },
    note: (line, from) => output.note(line, (last = from ?? last)),
    chatter: (line, from) => output.chatter(line, (last = from ?? last)),
  };
  let channels: (string | undefined)[];
  try {
    channels = await channelsOf(a);
  } catch (err) {
    io.stderr.write(`service-hooks forward: cannot list the relay's channels for --channel '*': ${escapeControls((err as Error).message)}\n`);
    return EXIT.failure;
  }
  if (channels.length === 0) {
    io.stderr.write("service-hooks forward: --channel '*': the relay has no channel yet\n");
    return EXIT.failure;
  }
  const ends = await Promise.all(channels.map((c) => forwardChannel({ ...a, channels: channels as string[] }, c, io, run)));
  view?.close();
  await output.flush();
  if (failure) {
    io.stderr.write(`service-hooks forward: ${escapeControls(failure.why)}\n`);
    return failure.exit;
  }
  const after = Math.max(...ends.map((e) => e.last));
  const said =
    channels.length === 1 ? (channels[0] === undefined ? 'forward:' : `forward: channel ${channels[0]}:`) : `forward: channels ${channels.join(', ')}:`;
  const lines = [
    channels.length === 1 && after >= 0 ? `${said} stopped after seq ${after}` : `${said} stopped`,
    tally.line(
      ends.reduce((n, e) => n + e.retrying, 0),
      said,
    ),
  ];
  // The list has gone (view.close): its lines go to stderr as they are.
  for (const line of lines) {
    if (view) io.stderr.write(line + '\n');
    else output.note(line, last);
  }
  return EXIT.ok;
}

const options = {
  relay: { type: 'string', multiple: true },
  token: { type: 'string' },
  data: { type: 'string' },
  to: { type: 'string' },
  events: { type: 'string' },
  'exclude-events': { type: 'string' },
  route: { type: 'string', multiple: true },
  channel: { type: 'string' },
  since: { type: 'string' },
  timeout: { type: 'string' },
  'retry-schedule': { type: 'string' },
  state: { type: 'string' },
  parallel: { type: 'string' },
  ca: { type: 'string' },
  output: { type: 'string' },
  'skip-verify': { type: 'boolean' },
} as const;

export default defineCommand({
  help,
  options,
  run({ values }, io) {
    return forward(parseArgs(values, io), io);
  },
});
