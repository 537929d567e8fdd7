// A process of its own that opens a journal's store (the relay's index, no server) and prints its
// memory as JSON once a full GC ran: the split /proc cannot give of a relay from outside — the JS
// heap (objects, JS arrays, Maps), array buffers (the index's typed-array columns, the delivery-id
// bytes, the attempt arena) and the RSS; and the bytes each typed array and buffer of the index
// holds, by field path (their capacity: a column grown to 2^k rows counts whole, though pages never
// written are not resident). Run with node --expose-gc (./relay-ten-million.ts indexMemory).
//   node --expose-gc --import tsx bench/indexMemoryChild.ts <data folder>
import { DeliveryStore } from '../relay/server/store/store';

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: indexMemoryChild.ts <data folder>');
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  gc();
  const before = process.memoryUsage();
  const store = await DeliveryStore.open(dir);
  gc();
  const after = process.memoryUsage();
  const mb = (n: number) => n / 1024 / 1024;
  console.log(
    JSON.stringify({
      deliveries: (store as unknown as { index: { size: number } }).index.size,
      heapUsedMb: mb(after.heapUsed - before.heapUsed),
      arrayBuffersMb: mb(after.arrayBuffers - before.arrayBuffers),
      externalMb: mb(after.external - before.external),
      rssMb: mb(after.rss - before.rss),
      fields: buffersOf((store as unknown as { index: object }).index),
    }),
  );
  await store.release();
}

/** The bytes of every typed array and buffer reachable from `root` through its fields (JS arrays and Maps: their length, by path). */
function buffersOf(root: object): Record<string, number> {
  const out: Record<string, number> = {};
  const seen = new Set<object>();
  const visit = (o: object, path: string, depth: number) => {
    if (seen.has(o)) return;
    seen.add(o);
    for (const [k, v] of Object.entries(o)) {
      const at = path ? `${path}.${k}` : k;
      if (ArrayBuffer.isView(v)) out[at] = v.byteLength;
      else if (Array.isArray(v)) out[`${at} (JS array, length)`] = v.length;
      else if (v instanceof Map || v instanceof Set) out[`${at} (${v instanceof Map ? 'Map' : 'Set'}, size)`] = v.size;
      else if (v && typeof v === 'object' && depth < 3) visit(v as object, at, depth + 1);
    }
  };
  visit(root, '', 0);
  return out;
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
