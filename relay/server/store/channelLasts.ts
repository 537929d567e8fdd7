// Each channel identity's last seq once its deliveries are gone: a small JSON file beside the store
// ({ "alice@2": 17, … }), written (to a temporary file, then renamed) before a prune or a drop of
// rejected deliveries takes an identity's newest record, read at open. What a channel token is told
// as its lastSeq (GET /api/status, /api/deliveries, the WebSocket's hello) is then the same before
// and after a prune and a restart, whatever the log kept of the pruned records (segment files, a
// purged stream). Holds channel names only: no token, no secret.
import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';

export const CHANNEL_LASTS_FILE = 'channel-lasts.json';

export class ChannelLasts {
  private readonly lasts = new Map<string, number>();
  private chain: Promise<void> = Promise.resolve();

  /** Reads `path` (none yet, or unreadable: starts empty; the seqs it lacks are the log's). */
  constructor(private readonly path: string | undefined) {
    if (!path) return;
    try {
      const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
      if (parsed && typeof parsed === 'object') {
        for (const [key, seq] of Object.entries(parsed)) if (Number.isSafeInteger(seq) && (seq as number) > 0) this.lasts.set(key, seq as number);
      }
    } catch {
      // ENOENT (a store that never pruned) or a damaged file: the log's records answer alone.
    }
  }

  /** The last seq kept for `key` (0: none). */
  of(key: string): number {
    return this.lasts.get(key) ?? 0;
  }

  /** Keeps these identities' last seqs and writes the file when one changed; resolves once written. */
  keep(entries: readonly [string, number][]): Promise<void> {
    let changed = false;
    for (const [key, seq] of entries) {
      if (seq > this.of(key)) {
        this.lasts.set(key, seq);
        changed = true;
      }
    }
    if (!changed || !this.path) return this.chain;
    const path = this.path;
    const text = JSON.stringify(Object.fromEntries(this.lasts));
    this.chain = this.chain
      .catch(() => undefined)
      .then(async () => {
        await writeFile(`${path}.tmp`, text, { mode: 0o600 });
        await rename(`${path}.tmp`, path);
      });
    return this.chain;
  }
}
