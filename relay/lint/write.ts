// Atomic rewrite of a fixed workflow (src/core/writeFileAtomic) with the original mode.
// Ownership is not copied (the file is rewritten by its owner in practice).
import { realpath, stat } from 'node:fs/promises';
import { writeFileAtomic } from '../../src/core/writeFileAtomic';

export async function writeAtomic(link: string, text: string): Promise<void> {
  const path = await realpath(link); // a symlinked workflow: rewrite its target, keep the link
  const mode = (await stat(path)).mode & 0o7777;
  await writeFileAtomic(path, text, { mode });
}
