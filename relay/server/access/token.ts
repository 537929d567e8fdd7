// The relay token: read from `<dataDir>/token`, or generated there once (mode 0600).
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { randomToken } from '../../../src/core/randomToken';
import { tokenFilePath } from '../../../src/core/relay/ready';

/** Reads `<dataDir>/token`, or generates it (mode 0600) and tells `onCreated` (the only time it is shown). */
export function ensureToken(dataDir: string, onCreated?: (token: string, path: string) => void): string {
  const path = tokenFilePath(dataDir);
  try {
    const t = readFileSync(path, 'utf8').trim();
    if (t) {
      chmodSync(path, 0o600);
      return t;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = randomToken(32);
  writeFileSync(path, token + '\n', { mode: 0o600, flag: 'w' });
  chmodSync(path, 0o600);
  onCreated?.(token, path);
  return token;
}
