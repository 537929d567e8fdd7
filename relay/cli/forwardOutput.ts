// How `service-hooks forward` shows its outcomes (--output, issue 38 item 5):
//   text    one line per delivery on stdout (relay/client/forwardLines.ts), notes on stderr, each
//           after the time and the relay address it came through (issue 42 item 7):
//             2026-11-27T16:04:05.123Z relay-a.example:443 #12 dev push → 200 3.1 ms
//   json    one JSON object per line per outcome on stdout, and nothing else there
//   quiet   only what needs a person: refused or given up, an app that is unreachable, and notes
// The delivery lines are gathered and written once per turn of the event loop; when stdout pushes
// back (a reader slower than 2,000 deliveries a second), they wait in memory for its 'drain'
// while forwarding goes on, and flush() waits for them before the process exits.
import { forwardLine } from '../client/forwardLines';
import type { ForwardEvent } from '../client/forwardEngine';
import { UsageError, type CliIO } from './io';
import { interactiveTerminal, type InteractiveView } from './forwardInteractive';

export const OUTPUTS = ['text', 'json', 'quiet', 'interactive'] as const;
export type OutputMode = (typeof OUTPUTS)[number];

/** --output's mode: interactive by default on a terminal (./forwardInteractive.ts), and text instead on a dumb one or none. */
export function outputMode(value: string | undefined, io: CliIO): OutputMode {
  if (value === undefined) return interactiveTerminal(io) ? 'interactive' : 'text';
  if (!(OUTPUTS as readonly string[]).includes(value)) throw new UsageError(`--output must be one of ${OUTPUTS.join(', ')}, got '${value}'`);
  return value === 'interactive' && !interactiveTerminal(io) ? 'text' : (value as OutputMode);
}

/** One outcome as `--output json` writes it. */
export interface OutcomeJson {
  seq: number;
  channel: string;
  event: string | null;
  deliveryId: string | null;
  target: string | null;
  outcome: 'delivered' | 'refused' | 'retrying' | 'gave-up' | 'skipped' | 'replayed';
  status: number | null;
  error: string | null;
  attempt: number | null;
  durationMs: number | null;
  willRetry: boolean;
  retryInMs?: number;
  reason?: string;
}

const OUTCOME = { delivered: 'delivered', final: 'refused', retrying: 'retrying', failed: 'gave-up', skipped: 'skipped', replayed: 'replayed' } as const;

/** The JSON line of a delivery's outcome; undefined for an event about an app (paused, resumed). */
export function outcomeJson(e: ForwardEvent): OutcomeJson | undefined {
  if (e.kind === 'paused' || e.kind === 'resumed') return undefined;
  const x = e as Partial<{ status: number; error: string; attempts: number; durationMs: number; inMs: number; reason: string }>;
  return {
    seq: e.seq,
    channel: e.channel,
    event: e.event ?? null,
    deliveryId: e.id ?? null,
    target: e.to ?? null,
    outcome: OUTCOME[e.kind],
    status: x.status ?? null,
    error: x.error ?? null,
    attempt: e.kind === 'replayed' ? 1 : (x.attempts ?? null),
    durationMs: x.durationMs === undefined ? null : Math.round(x.durationMs * 10) / 10,
    willRetry: e.kind === 'retrying',
    ...(e.kind === 'retrying' ? { retryInMs: e.inMs } : {}),
    ...(e.kind === 'skipped' ? { reason: e.reason } : {}),
  };
}

/** JSON with C1 controls and DEL escaped too (JSON.stringify escapes only U+0000-U+001F): a terminal showing it runs none. */
function jsonLine(j: OutcomeJson): string {
  const s = JSON.stringify(j);
  return /[\u007f-\u009f]/.test(s) ? s.replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : s;
}

/** Where a line comes from: the relay address (host:port) and, for the forwarder's own lines about an app, who says it (`forward: channel dev:`). */
export interface LineSource {
  relay: string;
  said?: string;
}

export class ForwardOutput {
  private lines: string[] = [];
  private scheduled = false;
  private draining: Promise<void> | undefined;

  constructor(
    private readonly mode: OutputMode,
    private readonly io: CliIO,
    private readonly totalAttempts: number,
    /** The relay address of a line that names none (host:port of the first --relay). */
    private readonly relay: string,
    /** --output interactive: the live list every event and note goes to. */
    private readonly view?: InteractiveView,
    private readonly now: () => number = Date.now,
  ) {}

  event(e: ForwardEvent, from?: LineSource): void {
    if (this.view) return this.view.event(e);
    if (this.mode === 'json') {
      const j = outcomeJson(e);
      if (j) return this.out(jsonLine(j));
      return this.note(forwardLine(e, this.totalAttempts, from?.said).line, from);
    }
    if (this.mode === 'quiet' && !(e.kind === 'final' || e.kind === 'failed' || e.kind === 'paused' || e.kind === 'resumed')) return;
    const { line, stream } = forwardLine(e, this.totalAttempts, from?.said);
    if (stream === 'stdout') this.out(this.stamped(line, from));
    else this.note(line, from);
  }

  /** A line for a person about the forwarder (stderr), in every mode. */
  note(line: string, from?: LineSource): void {
    if (this.view) return this.view.note(line);
    this.io.stderr.write(this.stamped(line, from) + '\n');
  }

  /** A line for a person that only text output shows (connected, resuming). */
  chatter(line: string, from?: LineSource): void {
    if (this.mode !== 'quiet') this.note(line, from);
  }

  /** `line` after the time and the relay address (not a JSON outcome: that line is the object alone). */
  private stamped(line: string, from: LineSource | undefined): string {
    return `${new Date(this.now()).toISOString()} ${from?.relay ?? this.relay} ${line}`;
  }

  /** Resolves once every line is written to stdout. */
  async flush(): Promise<void> {
    while (this.lines.length > 0 || this.draining) {
      if (this.draining) await this.draining;
      else this.write();
    }
  }

  private out(line: string): void {
    this.lines.push(line);
    if (this.scheduled || this.draining) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.draining) this.write();
    });
  }

  private write(): void {
    if (this.lines.length === 0) return;
    const text = this.lines.join('\n') + '\n';
    this.lines = [];
    if (this.io.stdout.write(text)) return;
    this.draining = new Promise<void>((resolve) =>
      this.io.stdout.once('drain', () => {
        this.draining = undefined;
        resolve();
        if (this.lines.length > 0) this.write();
      }),
    );
  }
}
