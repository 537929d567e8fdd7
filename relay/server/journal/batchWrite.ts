// Writing one group-commit batch (a list of buffers) at a position. A batch of up to
// SYNC_WRITE_MAX_BYTES is written on the calling thread: copying some kilobytes into the page cache
// takes microseconds, where a round trip through the thread pool took about 1 ms (p50) under load
// on a 2-core machine, and every acknowledgement in the batch waits for it. Larger batches (big
// bodies) go through the pool so the event loop is not held. The fdatasync stays in the pool.
import type { JournalFile } from './journalFs';

/** Batches up to this size are written synchronously. */
export const SYNC_WRITE_MAX_BYTES = 1024 * 1024;
/** Buffers per writev call (IOV_MAX is 1024 on Linux). */
const MAX_IOV = 512;

type Writev = (chunk: NodeJS.ArrayBufferView[], position: number) => number | Promise<number>;

export async function writeBatch(fh: JournalFile, iov: Uint8Array[], position: number, bytes: number): Promise<void> {
  const writev: Writev =
    bytes <= SYNC_WRITE_MAX_BYTES ? (chunk, pos) => fh.writevSync(chunk, pos) : async (chunk, pos) => (await fh.writev(chunk, pos)).bytesWritten;
  for (let i = 0; i < iov.length; i += MAX_IOV) {
    const chunk = iov.slice(i, i + MAX_IOV);
    const want = chunk.reduce((n, b) => n + b.byteLength, 0);
    const written = await writev(chunk as NodeJS.ArrayBufferView[], position);
    if (written < want) {
      // A short write (rare: a signal, a disk filling up): the rest one write at a time.
      const rest = Buffer.concat(chunk).subarray(written);
      let off = 0;
      while (off < rest.length) off += (await fh.write(rest, off, rest.length - off, position + written + off)).bytesWritten;
    }
    position += want;
  }
}
