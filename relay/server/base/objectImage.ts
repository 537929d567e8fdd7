// An object graph as an image (../base/imageParts.ts): the index (relay/server/deliveryIndex)
// written whole and read back without a line of it knowing. Class instances, plain objects,
// arrays, Maps and Sets go into one JSON part (objects shared or cyclic stay shared); the bytes
// behind typed arrays and Buffers go as array parts, one per ArrayBuffer (views of one buffer
// stay views of one buffer). Read back, instances get their class's prototype again, taken from
// a template (a fresh instance of the same root class) and known by its fields, not its name (a
// bundler renames classes): each class written must have the fields of exactly one of the
// template's classes, or the image is refused (ImageError) — a snapshot written by a build with
// another index layout is never used. A class the graph creates only later (not reached from a
// fresh instance) is made known by a sample instance. A function found while writing throws ImageError.
import { imageCheck, ImageError, type ImageReader, type ImageWriter } from './imageParts';

type Ref = string | number | boolean | null | [number] | { u: 1 } | { n: string };

type Node =
  /** c: the class (an index into Graph.classes), -1 for a plain object. */
  | { k: 'o'; c: number; f: Record<string, Ref> }
  | { k: 'a'; v: Ref[] }
  | { k: 'm'; v: [Ref, Ref][] }
  | { k: 's'; v: Ref[] }
  | { k: 't'; t: string; b: number; o: number; n: number };

interface Graph {
  nodes: Node[];
  /** Each class's fields, sorted, joined with ','. */
  classes: string[];
  /** Each ArrayBuffer: its length, and where its bytes are not all zero ([offset, length], ascending; only those are written). */
  buffers: { length: number; extents: [number, number][] }[];
}

/** Zero pages are neither written nor read back (nor so made resident): an index's spare capacity costs nothing. */
const PAGE = 4096;

/** The extents of `buffer` that are not whole zero pages, adjacent ones joined. */
function nonZero(buffer: ArrayBufferLike): [number, number][] {
  const words = new Uint32Array(buffer, 0, buffer.byteLength >>> 2);
  const bytes = new Uint8Array(buffer);
  const zero = (at: number, end: number): boolean => {
    const wordEnd = end >>> 2;
    for (let i = at >>> 2; i < wordEnd; i++) if (words[i] !== 0) return false;
    for (let i = wordEnd << 2; i < end; i++) if (bytes[i] !== 0) return false;
    return true;
  };
  const out: [number, number][] = [];
  for (let at = 0; at < buffer.byteLength; at += PAGE) {
    const end = Math.min(buffer.byteLength, at + PAGE);
    if (zero(at, end)) continue;
    const last = out.at(-1);
    if (last && last[0] + last[1] === at) last[1] += end - at;
    else out.push([at, end - at]);
  }
  return out;
}

const VIEWS: Record<string, { new (b: ArrayBuffer, o: number, n: number): ArrayBufferView; BYTES_PER_ELEMENT: number }> = {
  Float64Array,
  Float32Array,
  Uint32Array,
  Int32Array,
  Uint16Array,
  Int16Array,
  Uint8Array,
  Int8Array,
  Uint8ClampedArray,
};

function className(o: object): string {
  const proto = Object.getPrototypeOf(o) as { constructor?: { name?: string } } | null;
  return proto === Object.prototype || proto === null ? 'Object' : (proto.constructor?.name ?? '?');
}

/** Writes `root` and everything it reaches, the bytes copied (the graph may change right after). */
export function saveObject(w: ImageWriter, root: object): void {
  const ids = new Map<object, number>();
  const nodes: Node[] = [];
  const buffers = new Map<ArrayBufferLike, number>();
  const classes: string[] = [];
  const classIds = new Map<object, number>();
  const queue: object[] = [];
  const ref = (v: unknown): Ref => {
    if (v === undefined) return { u: 1 };
    if (typeof v === 'number') return Number.isFinite(v) ? v : { n: String(v) };
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
    if (typeof v !== 'object') throw new ImageError(`cannot keep a ${typeof v}`);
    let id = ids.get(v);
    if (id === undefined) {
      id = ids.size;
      ids.set(v, id);
      queue.push(v);
    }
    return [id];
  };
  ref(root);
  for (let i = 0; i < queue.length; i++) {
    const o = queue[i]!;
    if (ArrayBuffer.isView(o)) {
      let b = buffers.get(o.buffer);
      if (b === undefined) buffers.set(o.buffer, (b = buffers.size));
      const t = Buffer.isBuffer(o) ? 'Buffer' : className(o);
      imageCheck(t === 'Buffer' || t in VIEWS, `a ${t}`);
      const n = o.byteLength / (t === 'Buffer' ? 1 : VIEWS[t]!.BYTES_PER_ELEMENT);
      nodes[i] = { k: 't', t, b, o: o.byteOffset, n };
    } else if (Array.isArray(o)) nodes[i] = { k: 'a', v: Array.from(o, ref) };
    else if (o instanceof Map) nodes[i] = { k: 'm', v: Array.from(o, ([a, b]) => [ref(a), ref(b)]) };
    else if (o instanceof Set) nodes[i] = { k: 's', v: Array.from(o, ref) };
    else {
      const proto = Object.getPrototypeOf(o) as object | null;
      const f: Record<string, Ref> = {};
      for (const key of Object.keys(o)) f[key] = ref((o as Record<string, unknown>)[key]);
      let c = -1;
      if (proto !== Object.prototype && proto !== null) {
        c = classIds.get(proto) ?? classes.push(fieldsOf(o)) - 1;
        classIds.set(proto, c);
      }
      nodes[i] = { k: 'o', c, f };
    }
  }
  const written: Graph['buffers'] = [];
  const data: Uint8Array[] = [];
  for (const b of buffers.keys()) {
    const bytes = new Uint8Array(b);
    const extents = nonZero(b);
    const copy = new Uint8Array(extents.reduce((n, [, len]) => n + len, 0));
    let at = 0;
    for (const [o, len] of extents) copy.set(bytes.subarray(o, o + len), (at += len) - len);
    written.push({ length: b.byteLength, extents });
    data.push(copy);
  }
  w.json({ nodes, classes, buffers: written } satisfies Graph);
  for (const copy of data) w.array(copy);
}

function fieldsOf(o: object): string {
  return Object.keys(o).sort().join();
}

/** The classes `template` reaches, by their fields (null: two classes with the same fields). */
function classesOf(template: object): Map<string, object | null> {
  const out = new Map<string, object | null>();
  const seen = new Set<object>();
  const visit = (v: unknown): void => {
    if (typeof v !== 'object' || v === null || seen.has(v) || ArrayBuffer.isView(v)) return;
    seen.add(v);
    if (Array.isArray(v) || v instanceof Set) return v.forEach(visit);
    if (v instanceof Map) return v.forEach((x, k) => (visit(k), visit(x)));
    const proto = Object.getPrototypeOf(v) as object | null;
    if (proto !== Object.prototype && proto !== null) {
      const had = out.get(fieldsOf(v));
      out.set(fieldsOf(v), had === undefined || had === proto ? proto : null);
    }
    for (const x of Object.values(v)) visit(x);
  };
  visit(template);
  return out;
}

/** Reads what saveObject() wrote: a new graph whose classes are `template`'s (throws ImageError when they differ). */
export async function loadObject<T extends object>(r: ImageReader, template: T, samples: readonly object[] = []): Promise<T> {
  const g = await r.json<Graph>();
  imageCheck(typeof g === 'object' && g !== null && Array.isArray(g.nodes) && g.nodes.length > 0 && Array.isArray(g.buffers), 'object graph');
  const known = classesOf([template, ...samples]);
  imageCheck(Array.isArray(g.classes), 'classes');
  const protos = g.classes.map((fields) => {
    const proto = known.get(fields);
    imageCheck(proto !== undefined && proto !== null, `no class of this build has the fields ${fields}`);
    return proto;
  });
  const buffers: ArrayBuffer[] = [];
  for (const { length, extents } of g.buffers) {
    imageCheck(Number.isSafeInteger(length) && length >= 0 && Array.isArray(extents), 'buffer');
    let end = 0;
    for (const [o, n] of extents) {
      imageCheck(Number.isSafeInteger(o) && Number.isSafeInteger(n) && o >= end && n > 0 && o + n <= length, 'buffer extents');
      end = o + n;
    }
    const buffer = new ArrayBuffer(length);
    await r.bytesInto(extents.map(([o, n]) => new Uint8Array(buffer, o, n)));
    buffers.push(buffer);
  }
  const objects: unknown[] = g.nodes.map((n) => {
    if (n.k === 't') {
      const buf = buffers[n.b];
      imageCheck(buf !== undefined && (n.t === 'Buffer' || n.t in VIEWS), 'typed array');
      const size = n.t === 'Buffer' ? 1 : VIEWS[n.t]!.BYTES_PER_ELEMENT;
      imageCheck(n.o >= 0 && n.n >= 0 && n.o % size === 0 && n.o + n.n * size <= buf.byteLength, 'typed array bounds');
      return n.t === 'Buffer' ? Buffer.from(buf, n.o, n.n) : new VIEWS[n.t]!(buf, n.o, n.n);
    }
    if (n.k === 'a') return new Array<unknown>(n.v.length);
    if (n.k === 'm') return new Map();
    if (n.k === 's') return new Set();
    imageCheck(n.k === 'o' && Number.isInteger(n.c) && n.c >= -1 && n.c < protos.length, 'an object');
    return Object.create(n.c < 0 ? Object.prototype : protos[n.c]!) as object;
  });
  const value = (v: Ref): unknown => {
    if (Array.isArray(v)) {
      imageCheck(Number.isSafeInteger(v[0]) && v[0] >= 0 && v[0] < objects.length, 'reference');
      return objects[v[0]];
    }
    if (v !== null && typeof v === 'object') return 'u' in v ? undefined : Number(v.n);
    return v;
  };
  g.nodes.forEach((n, i) => {
    const o = objects[i];
    if (n.k === 'a') n.v.forEach((v, j) => ((o as unknown[])[j] = value(v)));
    else if (n.k === 'm') for (const [a, b] of n.v) (o as Map<unknown, unknown>).set(value(a), value(b));
    else if (n.k === 's') for (const v of n.v) (o as Set<unknown>).add(value(v));
    else if (n.k === 'o') for (const [key, v] of Object.entries(n.f)) (o as Record<string, unknown>)[key] = value(v);
  });
  const root = objects[0] as object;
  imageCheck(Object.getPrototypeOf(root) === Object.getPrototypeOf(template), 'the root object');
  return root as T;
}
