// `service-hooks forward`: subscribes to a (remote) relay and forwards each delivery byte-exact
// to a local URL with the shared forward loop (relay/client/forwardEngine.ts: the forwarding
// rules, a retrying set, a pause while the app is unreachable), keeping its resume point and the
// retrying set in a 0600 state file (relay/cli/forwardState.ts).
import { readFileSync } from 'node:fs';
import { tokenFilePath } from '../../src/core/relay/ready';
import { resolve } from 'node:path';
import { defineCommand, parseSchedule, positiveDuration } from '../cli/args';
import { forwardLine } from '../client/forwardLines';
import { forwardState, StateFileError } from '../cli/forwardState';
import { EXIT, UsageError, type CliIO } from '../cli/io';
import { isUntrustedCert, untrustedCertMessage } from '../cli/tlsTrust';
import { DEFAULT_FORWARD_TIMEOUT_MS } from '../client/forward';
import { retrySchedule } from '../../src/core/relay/forwardPolicy';
import { ForwardEngine, type CursorStore, type ForwardEngineOptions } from '../client/forwardEngine';
import type { HelloMessage } from '../../src/core/relay/protocol';
import { escapeControls } from '../../src/core/text/controls';
import { MAX_CONCURRENCY, subscribe, type SubscriptionState } from '../client/subscribe';

/** The relay's channel names (relay/server/channels/channels.ts CHANNEL_RE; not imported: this bundle stays small). */
const CHANNEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/**
 * The state file is written at most once per this many ms (ForwardEngineOptions.saveSpacingMs):
 * a burst of 1,000 deliveries a second wrote it, with its fsyncs, some 400 times a second (a
 * fifth of forward's CPU); a crash now posts again at most the last 50 ms' deliveries, which the
 * app tells apart by X-Service-Delivery as it must for any retry.
 */
const STATE_SAVE_SPACING_MS = 50;

const help = `Usage: service-hooks forward --relay ws(s)://HOST:PORT (--token T | --data DIR) --to URL [--channel C] [--since SEQ] [--timeout D] [--retry-schedule L] [--state FILE] [--parallel N]

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
the last handled seq.
Rejected deliveries are skipped. A delivery the relay sends again (\`service-hooks replay SEQ\` of one
this forwarder took) is posted to URL once more, printed with "(replay)", without moving the
resume point. The last handled seq and the deliveries still being retried are
kept in a 0600 state file per relay and per what the token reads (the admin token, with its
--channel; or a channel token's channel), so a restart misses nothing and repeats nothing:
$XDG_STATE_HOME/service-hooks/forward/ (default ~/.local/state/service-hooks/forward/). The file
records that scope; one written for another is refused, and so is one of an older version
(which does not record it) until --since says where to start, except the one it kept for
--channel C, which is taken over. A resume point the relay never
reached (its data was reset) stops forward: --since 0 takes every delivery it holds. The file
is written while the next deliveries go on: after a crash (not a stop), those handled during
its last write are posted again.

Options:
  --relay URL     the relay's address: ws(s)://HOST:PORT, or the http(s):// address the relay
                  prints (used as ws(s)://); /ws is added when missing
  --token T       the relay token (or env SERVICE_HOOKS_RELAY_TOKEN); sent in a header, never the URL
  --data DIR      a relay on this machine: read its token from DIR/token (the relay's --data)
  --to URL        local target, e.g. http://127.0.0.1:3000/webhook
  --channel C     only this channel
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

SIGINT or SIGTERM stops at once (exit 0): a forward in flight is cut off and stays
unacknowledged, so the relay sends it again at the next start. A relay that refuses the token
(HTTP 401 or 403), or whose TLS certificate is not trusted here (set NODE_EXTRA_CA_CERTS),
stops it with exit 1: retrying would not help.
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

interface ForwardArgs {
  relayUrl: string;
  token: string;
  to: string;
  channel?: string;
  since?: number;
  timeoutMs: number;
  schedule: readonly number[];
  stateFile?: string;
  parallel: number;
}

/** Checks the flags; throws UsageError with what is wrong. */
function parseArgs(values: Record<string, string | undefined>, io: CliIO): ForwardArgs {
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
  const schedule = retrySchedule(values['retry-schedule'] === undefined ? undefined : parseSchedule(values['retry-schedule']));
  const parallel = values.parallel === undefined ? 1 : Number(values.parallel);
  if (!/^\d+$/.test(values.parallel ?? '1') || parallel < 1 || parallel > MAX_CONCURRENCY) {
    throw new UsageError(`--parallel must be a whole number from 1 to ${MAX_CONCURRENCY}, got '${values.parallel}'`);
  }
  return { relayUrl, token, to: values.to, channel: values.channel, since, timeoutMs, schedule, stateFile: values.state, parallel };
}

/** Why the subscription cannot go on (a refused token, an untrusted certificate), or undefined. */
function fatal(s: SubscriptionState, relayUrl: string): string | undefined {
  if (s.state !== 'reconnecting') return undefined;
  if (s.refused === 401)
    return 'the relay refused the connection (HTTP 401): the token is not accepted (wrong, or its channel was deleted); pass the relay token or a channel token with --token or SERVICE_HOOKS_RELAY_TOKEN';
  if (s.refused === 403) {
    const limited = /this token is limited to channel '[^']*'/.exec(s.reason)?.[0];
    if (limited) return `the relay refused the connection (HTTP 403): ${limited}: --channel asks for another (drop --channel, or pass the admin token)`;
    return "the relay refused the connection (HTTP 403): the Host or Origin is not allowed (see the relay's --allow-host)";
  }
  if (isUntrustedCert(s.code)) return untrustedCertMessage(relayUrl, s.code!);
  return undefined;
}

/** The line that stops a forwarder whose resume point the relay never reached. */
function aheadOfRelay(seq: number, a: ForwardArgs, stateFile: string): string {
  const where = a.since !== undefined ? `seq ${seq} (--since)` : `seq ${seq}, where the forward state ${stateFile} resumes`;
  return `the relay has not reached ${where}: its data was reset, or it is another relay; restart with --since 0 to take every delivery it holds (or --since SEQ)`;
}

async function forward(a: ForwardArgs, io: CliIO): Promise<number> {
  const stop = new AbortController();
  io.stopSignal.addEventListener('abort', () => stop.abort(), { once: true });
  let failure: string | undefined;
  const fail = (why: string) => {
    failure ??= why;
    sub.close();
    stop.abort();
  };
  let engine: ForwardEngine | undefined;
  let stateFile = '';
  /** At the relay's hello, which names what the token reads: that scope's state file, and where to resume. */
  const start = (hello: HelloMessage): number | undefined => {
    try {
      const state = forwardState({ env: io.env, cwd: io.cwd, relayUrl: a.relayUrl, channel: a.channel, file: a.stateFile, scope: hello.scope, since: a.since });
      stateFile = state.path;
      engine = forwardEngine(a, io, state.store, (seq, r) => sub.report(seq, r));
      if (state.adopted) io.stderr.write(`forward: taking over ${state.adopted}, an older version's state for --channel ${a.channel}\n`);
    } catch (err) {
      if (!(err instanceof StateFileError)) throw err;
      fail(err.message);
      return undefined;
    }
    if (a.since !== undefined) engine.startAfter(a.since);
    else if (engine.lastSeq !== undefined) {
      const n = engine.retrying().length;
      io.stderr.write(`forward: resuming after seq ${engine.lastSeq}${n ? ` (${n} still being retried)` : ''}; state in ${stateFile}\n`);
    }
    return engine.since;
  };
  const sub = subscribe({
    url: a.relayUrl,
    token: a.token,
    since: a.since,
    resumeFrom: start,
    channel: a.channel,
    forwards: false, // the relay's own forward attempts are not shown here
    concurrency: a.parallel,
    onState: (s) => {
      const fatalNow = fatal(s, a.relayUrl) ?? (s.state === 'open' && s.sinceAhead ? aheadOfRelay(sub.lastSeq, a, stateFile) : undefined);
      if (failure || fatalNow) return fail(fatalNow ?? failure!);
      if (s.state === 'open' && engine) {
        // A relay too old to say sinceAhead: its lastSeq (a channel token's: its channel's) is all there is to go by.
        if (s.scope === undefined && engine.lastSeq !== undefined && s.lastSeq < engine.lastSeq) {
          io.stderr.write(
            `forward: the relay is at seq ${s.lastSeq}, before the resume point ${engine.lastSeq} in ${stateFile}: if the relay's data was reset, restart with --since 0\n`,
          );
        }
        engine.opened(s.lastSeq);
        io.stderr.write(`forward: connected (relay at seq ${s.lastSeq})\n`);
      } else if (s.state === 'reconnecting' && !stop.signal.aborted)
        io.stderr.write(`forward: ${escapeControls(s.reason)}; reconnecting in ${s.delayMs} ms, or once the relay's port answers again\n`);
    },
    onBadMessage: (line) => io.stderr.write(`forward: ${escapeControls(line)}\n`),
    onDelivery: (d) => engine!.handle(d),
    onReplay: (d) => engine!.replay(d),
  });
  await new Promise<void>((r) => (stop.signal.aborted ? r() : stop.signal.addEventListener('abort', () => r(), { once: true })));
  engine?.stop();
  sub.close();
  await sub.closed;
  await engine?.flushed();
  if (failure) {
    io.stderr.write(`service-hooks forward: ${escapeControls(failure)}\n`);
    return EXIT.failure;
  }
  const last = engine?.lastSeq ?? sub.lastSeq;
  io.stderr.write(last >= 0 ? `forward: stopped after seq ${last}\n` : 'forward: stopped\n');
  return EXIT.ok;
}

/** The forward loop of `forward`, over the cursor in its state file. */
function forwardEngine(a: ForwardArgs, io: CliIO, cursor: CursorStore, report: ForwardEngineOptions['report']): ForwardEngine {
  return new ForwardEngine({
    target: () => a.to,
    cursor,
    timeoutMs: a.timeoutMs,
    schedule: a.schedule,
    onEvent: (e) => {
      const { line, stream } = forwardLine(e, a.schedule.length);
      (stream === 'stdout' ? io.stdout : io.stderr).write(line + '\n');
    },
    report,
    log: (line) => io.stderr.write(line + '\n'),
    saveSpacingMs: STATE_SAVE_SPACING_MS,
  });
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
    'retry-schedule': { type: 'string' },
    state: { type: 'string' },
    parallel: { type: 'string' },
  },
  run({ values }, io) {
    return forward(parseArgs(values, io), io);
  },
});
