// One channel's forwarder of `service-hooks forward` (several run in one process with
// `--channel a,b` or `'*'`): its subscription, its forward loop (relay/client/forwardEngine.ts)
// and its state file, one resume point per relay identity and token scope (./forwardState.ts),
// over one or several addresses of the relay (failing over between them). A failure of one (a
// refused token, a state file of another scope, another relay at one address) stops them all
// through `run.fail`.
import { forwardState, StateFileError } from './forwardState';
import { EXIT, type CliIO } from './io';
import { untrustedRelay } from './forwardTls';
import type { Router } from './forwardRoutes';
import type { LineSource, OutputMode } from './forwardOutput';
import { ForwardEngine, type CursorStore, type ForwardEngineOptions, type ForwardEvent } from '../client/forwardEngine';
import type { HelloMessage, TokenScope } from '../../src/core/relay/protocol';
import { escapeControls } from '../../src/core/text/controls';
import { originOf } from '../shared/outages';
import { subscribe, type SubscriptionState } from '../client/subscribe';

/**
 * The state file is written at most once per this many ms (ForwardEngineOptions.saveSpacingMs):
 * a burst of 1,000 deliveries a second wrote it, with its fsyncs, some 400 times a second (a
 * fifth of forward's CPU); a crash now posts again at most the last 50 ms' deliveries, which the
 * app tells apart by X-Service-Delivery as it must for any retry.
 */
const STATE_SAVE_SPACING_MS = 50;

export interface ForwardArgs {
  /** --relay: the relay's addresses, ws(s)://…, tried in order (one relay's instances, or a balancer). */
  relayUrls: string[];
  token: string;
  /** Where each delivery goes (--to, --route), undefined when the filter (--events, …) leaves it out. */
  route: Router;
  /** Whether some deliveries may be left out by the filter (acknowledged as skipped). */
  filtered: boolean;
  /** The URLs deliveries may go to (--to and the routes'). */
  targets: string[];
  /** --channel: the channels asked for (one forwarder each), '*' for every one the token reads; undefined: the token's stream. */
  channels?: string[];
  since?: number;
  timeoutMs: number;
  schedule: readonly number[];
  stateFile?: string;
  parallel: number;
  output: OutputMode;
  /** The attempt to an app (--ca, --skip-verify); default: forwardDelivery. */
  attempt?: ForwardEngineOptions['attempt'];
  /** The CAs a wss:// relay address is checked against (--ca with the usual roots); default: Node's (NODE_EXTRA_CA_CERTS included). */
  relayCa?: string[];
}

/** What the forwarders of one process share. */
export interface ForwardRun {
  /** Aborted to stop every forwarder (SIGINT/SIGTERM, or one's failure). */
  stop: AbortSignal;
  /** Stops every forwarder; the process exits with `exit` (default 1) after printing `why`. */
  fail(why: string, exit?: number): void;
  onEvent(e: ForwardEvent, from: LineSource): void;
  /** A line for a person about the forwarder (stderr). */
  note(line: string, from?: LineSource): void;
  /** A line for a person that --output quiet leaves out (connected, resuming). */
  chatter(line: string, from?: LineSource): void;
}

/** A relay address as lines name it: host:port. */
export function relayLabel(url: string): string {
  const u = new URL(url);
  return `${u.hostname.includes(':') ? `[${u.hostname}]` : u.hostname}:${u.port || (u.protocol === 'wss:' || u.protocol === 'https:' ? 443 : 80)}`;
}

/** Why the subscription cannot go on (a refused token, an untrusted certificate), or undefined; with its exit code. */
function fatal(s: SubscriptionState, relayUrl: string): { why: string; exit?: number } | undefined {
  if (s.state !== 'reconnecting') return undefined;
  if (s.refused === 401)
    return {
      why: 'the relay refused the connection (HTTP 401): the token is not accepted (wrong, or its channel was deleted); pass the relay token or a channel token with --token or SERVICE_HOOKS_RELAY_TOKEN',
    };
  if (s.refused === 403) {
    const limited = /this token is limited to channel '[^']*'/.exec(s.reason)?.[0];
    // A usage error: the flags ask for what the token cannot read (not an empty stream).
    if (limited)
      return {
        why: `the relay refused the connection (HTTP 403): ${limited}: --channel asks for another (drop --channel, or pass the admin token)`,
        exit: EXIT.usage,
      };
    return { why: "the relay refused the connection (HTTP 403): the Host or Origin is not allowed (see the relay's --allow-host)" };
  }
  // An address whose certificate is not trusted here stops forward only when no other address goes on
  // (with one, the fail-over's note says why it was passed over).
  const untrusted = s.next === undefined ? untrustedRelay(relayUrl, s) : undefined;
  if (untrusted) return { why: untrusted };
  return undefined;
}

/** The line that stops a forwarder whose resume point the relay never reached. */
function aheadOfRelay(seq: number, a: ForwardArgs, stateFile: string): string {
  const where = a.since !== undefined ? `seq ${seq} (--since)` : `seq ${seq}, where the forward state ${stateFile} resumes`;
  return `the relay has not reached ${where}: its data was reset, or it is another relay; restart with --since 0 to take every delivery it holds (or --since SEQ)`;
}

/** Who speaks in a channel's lines: `forward: channel dev:` (a channel token's, or --channel), `forward: every channel:` (the admin token's whole stream). */
function speaker(channel: string | undefined, scope: TokenScope | undefined): string {
  const named = channel ?? (scope?.kind === 'channel' ? scope.channel : undefined);
  return named === undefined ? 'forward: every channel:' : `forward: channel ${named}:`;
}

/** Forwards `channel`'s deliveries (undefined: the token's whole stream) until `run.stop`; resolves to the last seq handled and how many are still being retried. */
export async function forwardChannel(a: ForwardArgs, channel: string | undefined, io: CliIO, run: ForwardRun): Promise<{ last: number; retrying: number }> {
  let said = speaker(channel, undefined);
  /** The relay address connected to (or being connected to): every line names it. */
  let at = a.relayUrls[0]!;
  const from = (): LineSource => ({ relay: relayLabel(at), said });
  let failed = false;
  const fail = (why: string, exit?: number) => {
    failed = true;
    sub.close();
    run.fail(why, exit);
  };
  let engine: ForwardEngine | undefined;
  let stateFile = '';
  /** At the relay's hello, which names what the token reads: that scope's state file, and where to resume. */
  const start = (hello: HelloMessage): number | undefined => {
    said = speaker(channel, hello.scope);
    try {
      const others = a.relayUrls.filter((u) => u !== at);
      const state = forwardState({
        env: io.env,
        cwd: io.cwd,
        relayUrl: at,
        channel,
        file: a.stateFile,
        scope: hello.scope,
        since: a.since,
        relay: hello.relay,
        others,
      });
      stateFile = state.path;
      engine = engineOf(a, run, from, state.store, (seq, r) => sub.report(seq, r));
      if (state.adopted) run.note(`${said} taking over ${state.adopted}, an older version's state for --channel ${channel}`, from());
      else if (state.migrated)
        run.note(`${said} taking over ${state.migrated}, an older version's state kept for ${at}, whose relay is ${hello.relay}; now in ${stateFile}`, from());
    } catch (err) {
      if (!(err instanceof StateFileError)) throw err;
      fail(err.message);
      return undefined;
    }
    if (a.since !== undefined) engine.startAfter(a.since);
    else if (engine.lastSeq !== undefined) {
      const n = engine.retrying().length;
      run.chatter(`${said} resuming after seq ${engine.lastSeq}${n ? ` (${n} still being retried)` : ''}; state in ${stateFile}`, from());
    }
    return engine.since;
  };
  const sub = subscribe({
    url: a.relayUrls,
    token: a.token,
    ...(a.relayCa ? { ca: a.relayCa } : {}),
    since: a.since,
    resumeFrom: start,
    channel,
    forwards: false, // the relay's own forward attempts are not shown here
    concurrency: a.parallel,
    onState: (s) => {
      if (s.state === 'connecting') at = s.url;
      const f =
        fatal(s, at) ??
        (s.state === 'open' && s.sinceAhead ? { why: aheadOfRelay(sub.lastSeq, a, stateFile) } : undefined) ??
        (s.state === 'closed' && s.error ? { why: s.reason } : undefined);
      if (f) return fail(f.why, f.exit);
      if (failed) return;
      if (s.state === 'open' && engine) {
        // A relay too old to say sinceAhead: its lastSeq (a channel token's: its channel's) is all there is to go by.
        if (s.scope === undefined && engine.lastSeq !== undefined && s.lastSeq < engine.lastSeq) {
          run.note(
            `${said} the relay is at seq ${s.lastSeq}, before the resume point ${engine.lastSeq} in ${stateFile}: if the relay's data was reset, restart with --since 0`,
            from(),
          );
        }
        engine.opened(s.lastSeq);
        run.chatter(`${said} connected (relay at seq ${s.lastSeq})${s.relay ? `; relay ${s.relay}` : ''}`, from());
      } else if (s.state === 'reconnecting' && !run.stop.aborted) {
        const lost = { relay: relayLabel(s.url), said };
        if (s.next) run.note(`${said} ${untrustedRelay(s.url, s) ?? escapeControls(s.reason)}; going on at once at ${relayLabel(s.next)}`, lost);
        else
          run.note(
            `${said} ${escapeControls(s.reason)}; reconnecting in ${s.delayMs} ms, or once ${a.relayUrls.length > 1 ? 'a' : 'the'} relay's port answers again`,
            lost,
          );
      }
    },
    onBadMessage: (line) => run.note(`${said} ${escapeControls(line)}`, from()),
    onDelivery: (d) => engine!.handle(d),
    onReplay: (d) => engine!.replay(d),
  });
  await new Promise<void>((r) => (run.stop.aborted ? r() : run.stop.addEventListener('abort', () => r(), { once: true })));
  engine?.stop();
  sub.close();
  await sub.closed;
  await engine?.flushed();
  return { last: engine?.lastSeq ?? sub.lastSeq, retrying: engine?.retrying().length ?? 0 };
}

/** The forward loop of one channel, over the cursor in its state file; its lines name the relay address of `from()`. */
function engineOf(a: ForwardArgs, run: ForwardRun, from: () => LineSource, cursor: CursorStore, report: ForwardEngineOptions['report']): ForwardEngine {
  return new ForwardEngine({
    target: a.route,
    skipsByFilter: a.filtered,
    holdPerTarget: new Set(a.targets.map(originOf)).size > 1, // one app that is down does not hold back another's deliveries
    cursor,
    timeoutMs: a.timeoutMs,
    schedule: a.schedule,
    ...(a.attempt ? { attempt: a.attempt } : {}),
    onEvent: (e) => run.onEvent(e, from()),
    report,
    log: (line) => run.note(line, from()),
    saveSpacingMs: STATE_SAVE_SPACING_MS,
  });
}
