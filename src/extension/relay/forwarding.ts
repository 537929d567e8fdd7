// Forwarding in the editor (Connect to Relay): the subscription's deliveries go to the local app
// through relay/client's ForwardEngine, the forward loop `service-hooks forward` runs, with the
// same rules (src/core/relay/forwardPolicy): 2xx delivered; other 4xx final (acknowledged, the
// row shows `→ 400`); 5xx/408/429/time-out retried on the schedule while later deliveries go on;
// an unreachable app pauses the stream until its port answers. The resume point and the retrying
// set are kept per relay and channel in the extension's global state, so a restart resumes there.
//
// The editor-side API (what relayManager and the commands use; keep it small):
//   new EditorForwarder(options)   options: client, targetFor, skipsByFilter, holdPerTarget, attempt, store, key,
//                                  onProblem, onHandled, onEvent, log
//   .since                         the seq to subscribe after (undefined: start at the relay's head)
//   .remember(head)                the subscription opened at the relay's head (the first resume point)
//   .handle                        the subscription's delivery handler
//   .replay                        a delivery the relay sends again on request (replay to subscribers)
//   .attach(connection)            later results of retried deliveries go to the relay through it
//   .retrying()                    deliveries waiting for their next attempt: seq, channel, event,
//                                  attempts, inMs, lastStatus/lastError (for rows: "retrying in 1 min")
//   .paused()                      apps the stream waits for (unreachable), since when
//   .retryNow(seq?)                attempt one (or every) retrying delivery now, probe a paused app now
//   .skip(seq)                     stop retrying one (Replay sends it again)
//   .stop()                        ends it; a delivery in flight is not acknowledged (sent again later)
import type { DeliveryHandled, ForwardStatus } from '../../../relay/client';
import type { EngineClock, ForwardEngine, ForwardEngineOptions, ForwardEvent, RetryingDelivery } from '../../../relay/client/forwardEngine';
import type { RelayClientModule, RelayDeliveryMessage } from './connection';

/** Where the resume point and the retrying set live (the extension's globalState). */
export interface SeqStore {
  get(key: string): unknown;
  set(key: string, value: unknown): void | Thenable<void>;
}

export interface ForwardingOptions {
  client: RelayClientModule;
  /** Where a delivery of `channel` and `event` goes; undefined: not forwarded (acknowledged as handled, or as skipped: skipsByFilter). */
  targetFor: (channel: string, event?: string) => string | undefined;
  /** The channels whose set-up has a filter: a delivery it leaves out is recorded at the relay as skipped. */
  skipsByFilter?: (channel: string) => boolean;
  /** Several apps (routes): one that is down holds back only its own deliveries. */
  holdPerTarget?: boolean;
  /** The attempt with the set-ups' https trust (forwardTrust.ts); default: the usual roots. */
  attempt?: ForwardEngineOptions['attempt'];
  store: SeqStore;
  /** seqKey(relay, channel filter); the retrying set is kept under `${key}#retrying`. */
  key: string;
  /** Told when forwarding has a problem (a sentence: the app is unreachable, deliveries are retrying) and when it has none (undefined). */
  onProblem?: (problem: string | undefined) => void;
  /** Told after each delivery was forwarded (2xx), answered for good (`final`), moved to retrying, or skipped. */
  onHandled?: (seq: number, result: { status?: number; skipped?: string; final?: boolean; retrying?: boolean }) => void;
  /** Every event of the engine (rows and status bar). */
  onEvent?: (event: ForwardEvent) => void;
  log?: (line: string) => void;
  timeoutMs?: number;
  /** The retry schedule (default the service's: 0, 1, 5, 30 min) and clock (tests). */
  schedule?: readonly number[];
  clock?: EngineClock;
  probeEveryMs?: number;
}

/** What `attach` needs of a connection: RelayConnection.report. */
export interface ResultReporter {
  report(seq: number, result: { status: number; state: ForwardStatus; replay?: boolean }): void;
}

export class EditorForwarder {
  forwarded = 0;
  private readonly engine: ForwardEngine;
  private reporter: ResultReporter | undefined;
  private problem: string | undefined;

  constructor(private readonly o: ForwardingOptions) {
    const retryKey = `${o.key}#retrying`;
    this.engine = new o.client.ForwardEngine({
      target: o.targetFor,
      ...(o.skipsByFilter ? { skipsByFilter: o.skipsByFilter } : {}),
      ...(o.holdPerTarget ? { holdPerTarget: true } : {}),
      ...(o.attempt ? { attempt: o.attempt } : {}),
      cursor: {
        load: () => {
          const lastSeq = o.store.get(o.key);
          const retrying = o.store.get(retryKey);
          return {
            ...(Number.isInteger(lastSeq) ? { lastSeq: lastSeq as number } : {}),
            retrying: Array.isArray(retrying) ? (retrying as RetryingDelivery[]) : [],
          };
        },
        save: async (c) => {
          if (c.lastSeq !== undefined) await o.store.set(o.key, c.lastSeq);
          await o.store.set(retryKey, c.retrying);
        },
      },
      timeoutMs: o.timeoutMs ?? 10_000,
      schedule: o.schedule,
      clock: o.clock,
      probeEveryMs: o.probeEveryMs,
      onEvent: (e) => this.onEvent(e),
      report: (seq, r) => this.reporter?.report(seq, r),
      log: o.log,
    });
  }

  /** The stored resume point (undefined: never connected to this relay and channel). */
  get since(): number | undefined {
    return this.engine.since;
  }

  /** The relay's head when the first subscription opens: new deliveries only, and a restart resumes there. */
  remember(relayLastSeq: number): void {
    this.engine.opened(relayLastSeq);
  }

  /** The subscription's handler: resolves when the delivery may be acknowledged (with the app's status). */
  handle = (d: RelayDeliveryMessage): Promise<DeliveryHandled> => this.engine.handle(d);

  /** A delivery the relay sent again on request: posted to the app once more; the result goes to the relay as a replay. */
  replay = (d: RelayDeliveryMessage): Promise<void> => this.engine.replay(d);

  /** Later results of retried deliveries are told to the relay through this connection. */
  attach(reporter: ResultReporter): void {
    this.reporter = reporter;
  }

  retrying(): ReturnType<ForwardEngine['retrying']> {
    return this.engine.retrying();
  }

  paused(): ReturnType<ForwardEngine['paused']> {
    return this.engine.paused();
  }

  /** Try the retrying deliveries (or `seq`) now, and probe a paused app now; false when nothing was waiting. */
  retryNow(seq?: number): boolean {
    const waiting = this.engine.paused().length > 0;
    return this.engine.retryNow(seq) > 0 || (seq === undefined && waiting);
  }

  skip(seq: number): boolean {
    return this.engine.skip(seq);
  }

  stop(): void {
    this.engine.stop();
  }

  private onEvent(e: ForwardEvent): void {
    this.o.onEvent?.(e);
    if (e.kind === 'delivered') this.forwarded++;
    if (e.kind !== 'paused' && e.kind !== 'resumed') {
      this.o.log?.(`#${e.seq} ${e.channel} ${e.event ?? '-'} ${describe(e)}`);
      this.o.onHandled?.(e.seq, handledOf(e));
    } else this.o.log?.(e.kind === 'paused' ? `${e.to} is unreachable (${e.error}); deliveries wait in order` : `${e.to} answers again`);
    const paused = this.engine.paused()[0];
    const retrying = this.engine.retrying();
    const problem = paused
      ? `${paused.to} is unreachable (${paused.error}); deliveries wait until it answers`
      : retrying.length > 0
        ? `${retrying.length} ${retrying.length === 1 ? 'delivery' : 'deliveries'} retrying (next: #${retrying[0]!.seq} ${retrying[0]!.lastStatus ?? retrying[0]!.lastError ?? ''})`
        : undefined;
    if (problem !== this.problem) {
      this.problem = problem;
      this.o.onProblem?.(problem);
    }
  }
}

function describe(e: Exclude<ForwardEvent, { kind: 'paused' | 'resumed' }>): string {
  switch (e.kind) {
    case 'delivered':
      return `→ ${e.status} ${e.durationMs.toFixed(1)} ms`;
    case 'final':
      return `→ ${e.status} (not retried)`;
    case 'retrying':
      return `→ ${e.status ?? `failed (${e.error})`} (retrying in ${Math.round(e.inMs / 1000)} s)`;
    case 'failed':
      return `→ ${e.status ?? `failed (${e.error})`} (gave up after ${e.attempts} attempts)`;
    case 'skipped':
      return `skipped (${e.reason})`;
    case 'replayed':
      return `→ ${e.status ?? `failed (${e.error})`} (replay)`;
  }
}

function handledOf(e: Exclude<ForwardEvent, { kind: 'paused' | 'resumed' }>): { status?: number; skipped?: string; final?: boolean; retrying?: boolean } {
  switch (e.kind) {
    case 'delivered':
      return { status: e.status };
    case 'final':
      return { status: e.status, final: true };
    case 'retrying':
      return { status: e.status, retrying: true };
    case 'failed':
      return { status: e.status, final: true };
    case 'skipped':
      return { skipped: e.reason };
    case 'replayed':
      return { status: e.status };
  }
}
