// Large bodies and V8's garbage collection. A 25 MB delivery passes through a process as tens of
// MB of short-lived buffers (TLS chunks, WebSocket frames, journal parts) beside the one body kept
// for it. V8 collects buffers only when its heap asks for it or once external memory has grown by
// its soft limit (64 MB) since the last collection, so a process held the body, the previous
// large body and up to 64 MB of garbage at once: 3× the body and more (issue 24). Here a full
// collection runs before a large body is taken (what earlier ones left goes first), and a
// young-generation one (a millisecond or two: these buffers die young) after every 2 MiB of a
// large body's bytes (every 4 or 8 MiB held more: 2.4× and 2.6× the body in `forward`). Node
// has no API for this: `--expose-gc` is set at run time and `gc` taken from a fresh context, as
// jest's --logHeapUsage does. Smaller bodies cost nothing here. A full collection runs at most
// once a second, so a peer that starts many large bodies cannot make the process collect for it.
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Bodies from this size on are collected around. */
export const LARGE_BODY_BYTES = 8 * 1024 * 1024;
/** A young-generation collection after this many bytes of large bodies went through. */
export const YOUNG_EVERY_BYTES = 2 * 1024 * 1024;

type Gc = (options: { type: 'major' | 'minor' }) => void;
/** null: not looked up yet; undefined: not available (then nothing is collected here). */
let gc: Gc | undefined | null = null;
let passed = 0;
/** At most one full collection per this many ms, by this clock (see setMajorInterval). */
let majorEveryMs = 1000;
let now = () => performance.now();
let lastMajorAt = -Infinity;
const collections = { major: 0, minor: 0 };

function collector(): Gc | undefined {
  if (gc === null) {
    try {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as Gc | undefined;
    } catch {
      gc = undefined;
    }
  }
  return gc;
}

function collect(type: 'major' | 'minor'): void {
  const run = collector();
  if (!run) return;
  run({ type });
  collections[type]++;
}

/** A body of `size` bytes is about to be taken: when large, what earlier ones left is collected first. */
export function takingBody(size: number): void {
  if (size < LARGE_BODY_BYTES || now() - lastMajorAt < majorEveryMs) return;
  lastMajorAt = now();
  collect('major');
}

/** Tests: the least time between two full collections (default 1 s; 0: one per large body), and the clock. */
export function setMajorInterval(ms: number, clock: () => number = () => performance.now()): void {
  majorEveryMs = ms;
  now = clock;
  lastMajorAt = -Infinity;
}

/** `bytes` of a body of `size` went through (received into it, or read out of it to send). */
export function bodyBytesPassed(size: number, bytes: number): void {
  if (size < LARGE_BODY_BYTES) return;
  passed += bytes;
  if (passed < YOUNG_EVERY_BYTES) return;
  passed = 0;
  collect('minor');
}

/** Collections run here so far (for tests). */
export function largeBodyCollections(): { major: number; minor: number } {
  return { ...collections };
}
