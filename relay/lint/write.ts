// Atomic rewrite of a fixed workflow: a temp file in the same folder with the original mode, then rename.
// Ownership is not copied (the file is rewritten by its owner in practice).
import { chmod, realpath, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export async function writeAtomic(link: string, text: string): Promise<void> {
  const path = await realpath(link); // a symlinked workflow: rewrite its target, keep the link
  const mode = (await stat(path)).mode & 0o7777;
  const { randomBytes } = await import('node:crypto'); // loaded only when a file is written
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
