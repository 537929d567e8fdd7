// The journal's only way to the file system: a narrow seam (open, read, writev, writevSync, datasync,
// truncate, rename, unlink, directory fsync) so tests can fail a write for real — ENOSPC in the
// middle of a batch, a truncate that fails too — without mocking node:fs. Production uses nodeFs.
import { open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { constants, readSync, writevSync } from 'node:fs';

/** The part of a file the journal uses: a FileHandle's methods (nodeFile below) plus a synchronous writev. */
export interface JournalFile {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  /** pread(2) on the calling thread: for a small record, far cheaper than a round trip through the thread pool. */
  readSync(buffer: Buffer, offset: number, length: number, position: number): number;
  write(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesWritten: number }>;
  writev(buffers: NodeJS.ArrayBufferView[], position: number): Promise<{ bytesWritten: number }>;
  /** writev(2) on the calling thread: for a small batch, far sooner than a round trip through the thread pool. */
  writevSync(buffers: NodeJS.ArrayBufferView[], position: number): number;
  datasync(): Promise<void>;
  truncate(length: number): Promise<void>;
  stat(): Promise<{ size: number }>;
  chmod(mode: number): Promise<void>;
  close(): Promise<void>;
}

export type OpenMode = 'read' | 'append' | 'update' | 'create';

export interface JournalFs {
  open(path: string, mode: OpenMode): Promise<JournalFile>;
  readdir(dir: string): Promise<string[]>;
  stat(path: string): Promise<{ size: number }>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** Makes a directory's entries (new, renamed, removed files) durable. */
  syncDir(dir: string): Promise<void>;
}

const FLAGS: Record<OpenMode, string> = { read: 'r', append: 'a', update: 'r+', create: 'w+' };

export const nodeFs: JournalFs = {
  open: async (path, mode) => nodeFile(await open(path, FLAGS[mode], 0o600)),
  readdir: (dir) => readdir(dir),
  stat: (path) => stat(path),
  rename: (from, to) => rename(from, to),
  unlink: (path) => unlink(path),
  async syncDir(dir) {
    const fh = await open(dir, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
    try {
      await fh.sync();
    } catch (err) {
      // Some file systems do not support fsync on a directory; that is not a failure of ours.
      if ((err as NodeJS.ErrnoException).code !== 'EINVAL' && (err as NodeJS.ErrnoException).code !== 'EISDIR') throw err;
    } finally {
      await fh.close();
    }
  },
};

/** A FileHandle as a JournalFile (its descriptor also serves the synchronous writev). */
function nodeFile(fh: FileHandle): JournalFile {
  return {
    read: (buffer, offset, length, position) => fh.read(buffer, offset, length, position),
    readSync: (buffer, offset, length, position) => readSync(fh.fd, buffer, offset, length, position),
    write: (buffer, offset, length, position) => fh.write(buffer, offset, length, position),
    writev: (buffers, position) => fh.writev(buffers, position),
    writevSync: (buffers, position) => writevSync(fh.fd, buffers, position),
    datasync: () => fh.datasync(),
    truncate: (length) => fh.truncate(length),
    stat: () => fh.stat(),
    chmod: (mode) => fh.chmod(mode),
    close: () => fh.close(),
  };
}

/** readFully's error when the file ends before the buffer is full. */
export class EndOfFileError extends Error {
  constructor() {
    super('unexpected end of file');
  }
}

/** readFully on the calling thread. */
export function readFullySync(fh: JournalFile, buf: Buffer, position: number): void {
  let done = 0;
  while (done < buf.length) {
    const bytesRead = fh.readSync(buf, done, buf.length - done, position + done);
    if (bytesRead === 0) throw new EndOfFileError();
    done += bytesRead;
  }
}

/** Fills `buf` from `position` (EndOfFileError if the file ends first). */
export async function readFully(fh: JournalFile, buf: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesRead } = await fh.read(buf, done, buf.length - done, position + done);
    if (bytesRead === 0) throw new EndOfFileError();
    done += bytesRead;
  }
}
