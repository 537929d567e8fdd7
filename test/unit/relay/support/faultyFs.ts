// A JournalFs over the real file system that fails chosen calls, for real: a failing writev can
// first write part of its bytes to the file (a partial batch, as ENOSPC leaves it).
import { nodeFs, type JournalFile, type JournalFs, type OpenMode } from '../../../../relay/server/journal/journalFs';

export type FsOp = 'open' | 'writev' | 'datasync' | 'truncate' | 'rename' | 'unlink' | 'syncDir';

export interface Fault {
  code: string;
  /** For writev: bytes really written before the error. */
  partialBytes?: number;
  /** For open: only opens in this mode fail. */
  mode?: OpenMode;
  /** How many calls fail (default: every call until cleared). */
  times?: number;
}

export function errno(code: string): NodeJS.ErrnoException {
  const err = new Error(`${code}: injected by the test`) as NodeJS.ErrnoException;
  err.code = code;
  return err;
}

export class FaultyFs implements JournalFs {
  private readonly faults = new Map<FsOp, Fault>();
  readonly calls: { op: FsOp; path: string }[] = [];
  /** How many writev calls ran on the calling thread (writevSync) rather than in the thread pool. */
  syncWrites = 0;
  /** How many reads ran on the calling thread (readSync) rather than in the thread pool. */
  syncReads = 0;

  fail(op: FsOp, fault: Fault): void {
    this.faults.set(op, { ...fault });
  }

  clear(op?: FsOp): void {
    if (op) this.faults.delete(op);
    else this.faults.clear();
  }

  /** The fault for this call, if any (counting down `times`). */
  private take(op: FsOp, path: string, mode?: OpenMode): Fault | undefined {
    this.calls.push({ op, path });
    const f = this.faults.get(op);
    if (!f || (f.mode && f.mode !== mode)) return undefined;
    if (f.times !== undefined && --f.times <= 0) this.faults.delete(op);
    return f;
  }

  async open(path: string, mode: OpenMode): Promise<JournalFile> {
    const f = this.take('open', path, mode);
    if (f) throw errno(f.code);
    return this.wrap(await nodeFs.open(path, mode), path);
  }

  readdir(dir: string): Promise<string[]> {
    return nodeFs.readdir(dir);
  }

  stat(path: string): Promise<{ size: number }> {
    return nodeFs.stat(path);
  }

  async rename(from: string, to: string): Promise<void> {
    const f = this.take('rename', from);
    if (f) throw errno(f.code);
    return nodeFs.rename(from, to);
  }

  async unlink(path: string): Promise<void> {
    const f = this.take('unlink', path);
    if (f) throw errno(f.code);
    return nodeFs.unlink(path);
  }

  async syncDir(dir: string): Promise<void> {
    const f = this.take('syncDir', dir);
    if (f) throw errno(f.code);
    return nodeFs.syncDir(dir);
  }

  private wrap(file: JournalFile, path: string): JournalFile {
    return {
      read: (b, o, l, p) => file.read(b, o, l, p),
      readSync: (b, o, l, p) => {
        this.syncReads++;
        return file.readSync(b, o, l, p);
      },
      write: (b, o, l, p) => file.write(b, o, l, p),
      writev: async (buffers, position) => {
        const f = this.take('writev', path);
        if (!f) return file.writev(buffers, position);
        const bytes = Buffer.concat(buffers.map((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength)));
        if (f.partialBytes) await file.write(bytes, 0, Math.min(f.partialBytes, bytes.length), position);
        throw errno(f.code);
      },
      writevSync: (buffers, position) => {
        this.syncWrites++;
        const f = this.take('writev', path);
        if (!f) return file.writevSync(buffers, position);
        const bytes = Buffer.concat(buffers.map((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength)));
        if (f.partialBytes) file.writevSync([bytes.subarray(0, Math.min(f.partialBytes, bytes.length))], position);
        throw errno(f.code);
      },
      datasync: async () => {
        const f = this.take('datasync', path);
        if (f) throw errno(f.code);
        return file.datasync();
      },
      truncate: async (length) => {
        const f = this.take('truncate', path);
        if (f) throw errno(f.code);
        return file.truncate(length);
      },
      stat: () => file.stat(),
      chmod: (mode) => file.chmod(mode),
      close: () => file.close(),
    };
  }
}
