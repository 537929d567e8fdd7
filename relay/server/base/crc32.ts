// CRC-32 (IEEE) of journal records. Uses node:zlib's native crc32 (Node ≥ 20.15 / 22.2),
// with a table fallback for older runtimes. Incremental: pass the previous value to continue.
import * as zlib from 'node:zlib';

let table: Uint32Array | undefined;

function tableCrc32(data: Uint8Array, value = 0): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = (value ^ 0xffffffff) >>> 0;
  for (let i = 0; i < data.length; i++) crc = table[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const native = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

export function crc32(data: Uint8Array, value = 0): number {
  return native ? native(data, value) >>> 0 : tableCrc32(data, value);
}

/** For tests: the portable implementation. */
export const crc32Portable = tableCrc32;
