// The state file: loaded once at start, rewritten atomically (src/core/writeFileAtomic; mode 0600)
// after changes. Writes are coalesced: many changes in a burst produce one or two writes.
import { accessSync, constants, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../../src/core/writeFileAtomic';
import { checkState } from './stateShape';
import type { StateFile } from './types';

/** Reads the state file; undefined when it does not exist. Throws when it is not a valid state (stateShape.ts). */
export function loadState(path: string): StateFile | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read the state file ${path}: ${(err as Error).message}`, { cause: err });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Error(`the state file ${path} is not valid JSON (${(err as Error).message}); move it away or fix it`, { cause: err });
  }
  const checked = checkState(data);
  if (!checked.ok) throw new Error(`the state file ${path} is not a valid emulator state: ${checked.error}; move it away or fix it`);
  return checked.state;
}

/** Throws unless a state file can be written at `path` (its folder exists and is writable): said at start, not at the first change. */
export function checkStateWritable(path: string): void {
  const dir = dirname(path);
  try {
    accessSync(dir, constants.W_OK);
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `is not writable (${(err as NodeJS.ErrnoException).code})`;
    throw new Error(`cannot keep the state file ${path}: the folder ${dir} ${why}`, { cause: err });
  }
}

export class StateWriter {
  private dirty = false;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failed = false;
  private stopped = false;

  constructor(
    private readonly path: string,
    private readonly snapshot: () => string,
    private readonly log: (line: string) => void,
    private readonly delayMs = 20,
  ) {}

  /** Marks the state changed; a write follows shortly. */
  changed(): void {
    this.dirty = true;
    if (this.timer || this.running || this.stopped) return;
    // After a failed write, wait longer before the next one so a full disk is not hammered.
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.flush();
      },
      this.failed ? 1000 : this.delayMs,
    );
  }

  /** Writes now if anything changed; resolves once the file on disk holds the latest state. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.running) await this.running;
    if (!this.dirty) return;
    this.dirty = false;
    this.running = this.write(this.snapshot()).then(
      () => {
        this.failed = false;
      },
      (err: Error) => {
        this.dirty = true;
        this.failed = true;
        this.log(`could not write the state file ${this.path}: ${err.message}`);
      },
    );
    try {
      await this.running;
    } finally {
      this.running = undefined;
    }
    if (this.dirty) this.changed();
  }

  /** Final write; no timers afterwards. */
  async close(): Promise<void> {
    this.stopped = true;
    await this.flush();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async write(text: string): Promise<void> {
    await writeFileAtomic(this.path, text, { mode: 0o600 });
  }
}
