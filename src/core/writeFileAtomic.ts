// Replacing a small file so that a crash leaves the old content or the new, never a torn mix: the
// one way every state file here is written (the channel registry, the forward command's state, the
// emulator's state file, the linter's --fix). Write a temporary file beside it (created with
// `mode`, then chmod against the umask), fsync it, rename it over the file, fsync the folder so the
// rename itself is durable. A folder some file systems cannot fsync is left as renamed.
import { chmodSync, closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { chmod, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface AtomicWriteOptions {
  /** The file's permission bits (default 0o600: state files may hold secrets). */
  mode?: number;
}

let written = 0;

/** Beside the file, unique to this process and write (created with 'wx': never someone else's file). */
function tempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now().toString(36)}.${++written}.tmp`);
}

/** A folder fsync that fails because the file system does not support it (the rename still happened). */
function unsupported(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EINVAL' || code === 'ENOTSUP' || code === 'EISDIR' || code === 'EPERM' || code === 'EACCES';
}

/** Writes `data` to `path` atomically and durably (see above). */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const mode = options.mode ?? 0o600;
  const tmp = tempPath(path);
  try {
    const fh = await open(tmp, 'wx', mode);
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await chmod(tmp, mode);
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  const dir = await open(dirname(path), 'r');
  try {
    await dir.sync().catch((err: unknown) => {
      if (!unsupported(err)) throw err;
    });
  } finally {
    await dir.close();
  }
}

/** writeFileAtomic for callers that must not yield (the same steps, synchronously). */
export function writeFileAtomicSync(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const mode = options.mode ?? 0o600;
  const tmp = tempPath(path);
  try {
    const fd = openSync(tmp, 'wx', mode);
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(tmp, mode);
    renameSync(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // never created, or already renamed
    }
    throw err;
  }
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } catch (err) {
    if (!unsupported(err)) throw err;
  } finally {
    closeSync(dir);
  }
}
