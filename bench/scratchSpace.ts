// A scale bench's disk: how many deliveries fit in the temp folder's free space (checked before
// anything is written), and the folders and relay processes it made, removed and killed at the
// end, on an error and on Ctrl-C alike.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Free bytes in the temp folder (statfs: what an unprivileged process may write). */
export function freeBytes(): number {
  const fs = statfsSync(tmpdir());
  return fs.bavail * fs.bsize;
}

const gb = (bytes: number) => `${(bytes / 1e9).toFixed(1)} GB`;

/**
 * `asked` deliveries of `bytesEach` on disk, or the largest number that fits in the temp folder's
 * free space with 10 % to spare (said, loudly); throws when fewer than `least` fit.
 */
export function fitting(asked: number, bytesEach: number, least: number): number {
  const free = freeBytes();
  const fits = Math.floor((free * 0.9) / bytesEach);
  console.log(`free in ${tmpdir()}: ${gb(free)}; ${asked.toLocaleString('en')} deliveries need about ${gb(asked * bytesEach)}`);
  if (fits >= asked) return asked;
  console.log(
    `NOT ENOUGH DISK for ${asked.toLocaleString('en')} deliveries: running the largest that fits, ${fits.toLocaleString('en')} (free space in ${tmpdir()} or pass --n)`,
  );
  if (fits < least)
    throw new Error(`only ${fits.toLocaleString('en')} deliveries fit in ${tmpdir()} (at least ${least.toLocaleString('en')} needed): free some space`);
  return fits;
}

const dirs = new Set<string>();
const children = new Set<ChildProcess>();

/** Kills what is still running and removes every scratch folder (synchronous: it runs on exit too). */
export function cleanUp(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  children.clear();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs.clear();
}

let hooked = false;
function hook(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', cleanUp);
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      console.error(`\n${signal}: removing what the bench wrote`);
      cleanUp();
      process.exit(130);
    });
}

/** A fresh folder in the temp folder, removed by cleanUp() (at exit, on Ctrl-C). */
export function scratchDir(prefix: string): string {
  hook();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

/** Removes a scratch folder now. */
export function removeScratch(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  dirs.delete(dir);
}

/** Kills `child` at cleanUp() if it still runs then. */
export function owned(child: ChildProcess): ChildProcess {
  hook();
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
