// What a benchmark reads about a child process from /proc (Linux): CPU time and memory; and the
// machine's load average, printed beside figures taken on a shared machine.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** The 1, 5 and 15 minute load averages, "0.5 1.2 1.0". */
export function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
}

/** CPU time (user + system) a process, or one of its threads, has used so far, in ms (10 ms ticks). */
export function cpuMs(pid: number, thread?: number): number {
  const path = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const f = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime, stime in clock ticks (100/s)
}

/** Resident memory now and at its peak, and the anonymous part now (heap, buffers; not mapped files or code), in KiB. */
export function memKb(pid: number): { rss: number; hwm: number; anon: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const get = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(s)?.[1] ?? NaN);
  return { rss: get('VmRSS'), hwm: get('VmHWM'), anon: get('RssAnon') };
}
