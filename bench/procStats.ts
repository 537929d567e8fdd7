// What a benchmark reads about a child process from /proc (Linux): CPU time and memory.
import { readFileSync } from 'node:fs';

/** CPU time (user + system) a process, or one of its threads, has used so far, in ms (10 ms ticks). */
export function cpuMs(pid: number, thread?: number): number {
  const path = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const f = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime, stime in clock ticks (100/s)
}

/** Resident memory now and at its peak, in KiB. */
export function memKb(pid: number): { rss: number; hwm: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const get = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(s)?.[1] ?? NaN);
  return { rss: get('VmRSS'), hwm: get('VmHWM') };
}
