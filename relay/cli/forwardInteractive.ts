// `forward --output interactive` (issue 38 item 5; the default when stdout and stdin are a
// terminal that is not dumb): a live list of the newest deliveries with their status, redrawn in
// place by log-update (a maintained library: the cursor handling is not ours). Keys: ↑/↓ select,
// Enter headers and body (read from the relay's API), r replay to this forwarder's channel
// subscribers, o open the relay's page, q quit (as SIGINT). A terminal that goes away (SIGHUP, an
// error writing to it) ends the view and nothing else: forwarding goes on without output.
import { spawn } from 'node:child_process';
import { emitKeypressEvents } from 'node:readline';
import { createLogUpdate } from 'log-update';
import { forwardLine } from '../client/forwardLines';
import type { ForwardEvent } from '../client/forwardEngine';
import type { RelayApi } from '../client/api';
import { escapeControls } from '../../src/core/text/controls';
import type { CliIO } from './io';

/** Deliveries kept in the list (the newest). */
const KEPT = 200;
const HELP = '↑↓ select · Enter headers and body · r replay · o open on the relay · q quit';

/** Whether `--output` defaults to interactive here: stdout and stdin are a terminal, and not a dumb one. */
export function interactiveTerminal(io: CliIO): boolean {
  const stdin = io.stdin as NodeJS.ReadableStream & { isTTY?: boolean };
  return io.stdout.isTTY === true && stdin.isTTY === true && (io.env.TERM ?? '') !== '' && io.env.TERM !== 'dumb';
}

interface Row {
  seq: number;
  line: string;
}

export interface InteractiveOptions {
  io: CliIO;
  api: RelayApi;
  /** The relay's page. */
  pageUrl: string;
  totalAttempts: number;
  /** q: stop forwarding (as SIGINT). */
  quit(): void;
}

export class InteractiveView {
  private readonly rows: Row[] = [];
  private selected = 0;
  private detail: string | undefined;
  private status = '';
  private gone = false;
  private readonly draw: ReturnType<typeof createLogUpdate>;
  private readonly stdin: NodeJS.ReadStream;
  private readonly onKey = (s: string | undefined, key: { name?: string; ctrl?: boolean } | undefined) => this.key(s, key);
  private readonly onHangup = () => this.close(true);

  constructor(private readonly o: InteractiveOptions) {
    this.stdin = o.io.stdin as NodeJS.ReadStream;
    this.draw = createLogUpdate(o.io.stdout);
    // Left on after close: a terminal gone later must not end the process with an 'error' nobody handles.
    for (const s of [o.io.stdout, o.io.stderr, this.stdin]) s.on('error', this.onHangup);
    process.on('SIGHUP', this.onHangup);
    emitKeypressEvents(this.stdin);
    this.stdin.setRawMode?.(true);
    this.stdin.on('keypress', this.onKey);
    this.stdin.on('end', this.onHangup);
    this.stdin.resume();
    this.render();
  }

  event(e: ForwardEvent): void {
    const { line, stream } = forwardLine(e, this.o.totalAttempts);
    if (stream === 'stderr' || e.kind === 'paused' || e.kind === 'resumed') return this.note(line);
    const at = this.rows.findIndex((r) => r.seq === e.seq);
    if (at >= 0) this.rows[at]!.line = line;
    else {
      this.rows.unshift({ seq: e.seq, line });
      if (this.selected > 0) this.selected++; // the selection stays on its delivery
      if (this.rows.length > KEPT) this.rows.pop();
      this.selected = Math.min(this.selected, this.rows.length - 1);
    }
    this.render();
  }

  /** A line about the forwarder: the status line. */
  note(line: string): void {
    this.status = escapeControls(line);
    this.render();
  }

  /** Ends the view (the terminal is given back); `hungUp`: the terminal went away, nothing more is written to it. */
  close(hungUp = false): void {
    if (this.gone) return;
    this.gone = true;
    // The SIGHUP listener stays: without one of ours, log-update's signal-exit re-raises SIGHUP and
    // the default action ends the process, forwarding and all.
    this.stdin.off('keypress', this.onKey);
    this.stdin.off('end', this.onHangup);
    if (!hungUp) {
      try {
        this.stdin.setRawMode?.(false);
        this.draw.done();
      } catch {
        // the terminal is gone after all
      }
    }
    if (hungUp)
      this.stdin.destroy(); // a hung-up terminal's input would wake the loop without end
    else this.stdin.pause();
  }

  private key(s: string | undefined, key: { name?: string; ctrl?: boolean } | undefined): void {
    const name = key?.name ?? s;
    if (name === 'q' || (key?.ctrl && name === 'c')) return this.o.quit();
    if (this.detail !== undefined && (name === 'escape' || name === 'return' || name === 'backspace')) {
      this.detail = undefined;
      return this.render();
    }
    if (name === 'up') this.selected = Math.max(0, this.selected - 1);
    else if (name === 'down') this.selected = Math.min(this.rows.length - 1, this.selected + 1);
    else if (name === 'return') return void this.show();
    else if (name === 'r') return void this.replay();
    else if (name === 'o') return this.open();
    this.render();
  }

  private current(): Row | undefined {
    return this.rows[this.selected];
  }

  private async show(): Promise<void> {
    const row = this.current();
    if (!row) return;
    try {
      const d = await this.o.api.getDelivery(row.seq);
      const body = Buffer.from(d.bodyBase64, 'base64').toString('utf8');
      const headers = Object.entries(d.headers).map(([k, v]) => `${k}: ${v}`);
      // Each line escaped on its own: the lines' own breaks are the view's, a sender's control characters are shown.
      const lines = [`#${d.seq} ${d.channel} ${d.event ?? '-'} (Enter or Esc: back)`, ...headers, '', ...body.split('\n')];
      this.detail = lines.map(escapeControls).join('\n');
    } catch (err) {
      this.status = escapeControls(`forward: cannot read #${row.seq} from the relay: ${(err as Error).message}`);
    }
    this.render();
  }

  private async replay(): Promise<void> {
    const row = this.current();
    if (!row) return;
    try {
      const r = await this.o.api.replayToSubscribers(row.seq);
      this.status = `forward: #${row.seq} replayed to ${r.subscribers} subscriber${r.subscribers === 1 ? '' : 's'}`;
    } catch (err) {
      this.status = escapeControls(`forward: the relay refused the replay of #${row.seq}: ${(err as Error).message}`);
    }
    this.render();
  }

  private open(): void {
    const row = this.current();
    if (!row) return;
    const opener = this.o.io.env.BROWSER ?? (process.platform === 'darwin' ? 'open' : 'xdg-open');
    spawn(opener, [this.o.pageUrl], { stdio: 'ignore', detached: true })
      .on('error', () => this.note(`forward: could not start ${opener}; open ${this.o.pageUrl} and find #${row.seq}`))
      .unref();
    this.note(`forward: opened ${this.o.pageUrl} (#${row.seq})`);
  }

  private render(): void {
    if (this.gone) return;
    const height = Math.max(5, (this.o.io.stdout as NodeJS.WriteStream).rows ?? 24);
    if (this.detail !== undefined)
      return this.draw(
        this.detail
          .split('\n')
          .slice(0, height - 1)
          .join('\n'),
      );
    const room = height - 4;
    const top = Math.max(0, Math.min(this.selected - room + 1, this.rows.length - room));
    const list = this.rows.slice(top, top + room).map((r, i) => `${top + i === this.selected ? '›' : ' '} ${r.line}`);
    this.draw(['service-hooks forward · ' + HELP, ...(list.length ? list : ['  (no delivery yet)']), '', this.status].join('\n'));
  }
}
