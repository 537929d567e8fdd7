// Atomic rewrite of a fixed workflow: a temp file in the same folder with the original mode, then rename.
import { chmod, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

export async function writeAtomic(path: string, text: string): Promise<void> {
  const mode = (await stat(path)).mode & 0o7777;
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, text, { mode });
    await chmod(tmp, mode); // the umask may have narrowed it
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}
