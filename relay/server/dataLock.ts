// One relay per data folder: `<dataDir>/relay.lock` holds the owner's pid and its start time. A
// second relay on the same folder refuses to start (DataDirLockedError); a lock whose owner is gone
// (killed, crashed, or its pid reused by another program) is taken over.
import { closeSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

export const LOCK_FILE = 'relay.lock';

/** Another live relay holds the data folder. The CLI exits with EXIT_DATA_DIR_LOCKED (3). */
export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
  readonly code = 'ERR_RELAY_DATA_DIR_LOCKED';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`the data folder ${dataDir} is in use by another relay (pid ${pid}); stop that relay, or give this one another --data folder`);
  }
}

export interface DataLock {
  release(): void;
}

interface Owner {
  pid: number;
  /** The owner's start time as the kernel counts it (Linux /proc), to tell a reused pid apart. */
  start?: string;
}

/** Takes the folder's lock or throws DataDirLockedError. Synchronous, so two starts in one process cannot interleave. */
export function lockDataDir(dataDir: string): DataLock {
  const path = join(dataDir, LOCK_FILE);
  const me: Owner = { pid: process.pid, start: startTime(process.pid) };
  for (let tries = 0; tries < 3; tries++) {
    if (create(path, me)) {
      let held = true;
      return {
        release: () => {
          if (held) release(path, me);
          held = false;
        },
      };
    }
    const owner = readOwner(path);
    if (owner === undefined) continue; // gone since: try again
    if (alive(owner)) throw new DataDirLockedError(dataDir, owner.pid);
    takeOverStale(path, owner);
  }
  throw new DataDirLockedError(dataDir, readOwner(path)?.pid ?? 0);
}

function create(path: string, me: Owner): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, JSON.stringify(me) + '\n');
  } finally {
    closeSync(fd);
  }
  return true;
}

function readOwner(path: string): Owner | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const o = JSON.parse(text) as Owner;
    if (Number.isInteger(o.pid) && o.pid > 0) return o;
  } catch {
    // a lock cut short by a crash between create and write: nobody owns it
  }
  return { pid: 0 };
}

/** The owner still runs: its pid exists and, where the kernel tells, started when the lock says. */
function alive(owner: Owner): boolean {
  if (owner.pid <= 0) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    // EPERM: a process of another user has that pid; fall through to the start time
  }
  const now = startTime(owner.pid);
  return owner.start === undefined || now === undefined || now === owner.start;
}

/**
 * Removes a stale lock: renamed aside first, then checked to be the stale one read before (a racing
 * start may have replaced it); a fresh lock moved aside by mistake is put back.
 */
function takeOverStale(path: string, stale: Owner): void {
  const aside = `${path}.stale-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const moved = readOwner(aside);
  if (moved && (moved.pid !== stale.pid || moved.start !== stale.start)) {
    try {
      renameSync(aside, path);
    } catch {
      // cannot restore: the next try reads whatever is there
    }
    return;
  }
  unlinkSync(aside);
}

function release(path: string, me: Owner): void {
  const owner = readOwner(path);
  if (owner && owner.pid === me.pid && owner.start === me.start) {
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  }
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot); undefined off Linux. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}
