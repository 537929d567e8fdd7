// The identity of what a relay serves: the same on every instance of one store, and another for
// another store (a reset file journal, a re-created stream). The relay's hello names it
// (HelloMessage.relay), so `service-hooks forward` keys its resume point by it, not by the
// address it connected to: moved from one instance to another (or to a load balancer in front of
// them) it resumes where it was, and with several --relay addresses it refuses to fail over to a
// relay that names another.
//   file:     an id created once and kept in the data folder (RELAY_ID_FILE)
//   jetstream: the deliveries stream, the cluster it lives in, and when it was created (a stream
//             deleted and created again is another store; the same on every instance)
//   memory:   an id per process (its deliveries go with it)
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file in a relay's data folder that holds the file store's identity (created once). */
export const RELAY_ID_FILE = 'relay-id';

const ID = /^[0-9a-f-]{36}$/;

/** The file store's identity: `file:<id>`, the id read from `<dataDir>/relay-id`, created there when absent. */
export function fileStoreIdentity(dataDir: string): string {
  const file = join(dataDir, RELAY_ID_FILE);
  let id: string | undefined;
  try {
    id = readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (id === undefined || !ID.test(id)) {
    // 'wx' when there was none: two processes never both create it (the data folder is locked besides).
    const flag = id === undefined ? 'wx' : 'w';
    id = randomUUID();
    writeFileSync(file, id + '\n', { mode: 0o644, flag });
  }
  return `file:${id}`;
}

/** What a stream's info says of it (the NATS client's StreamInfo, structurally). */
export interface StreamFacts {
  config: { name: string };
  created: string;
  cluster?: { name?: string };
}

/** The JetStream store's identity: `jetstream:<cluster>/<stream>@<created>` (`-` for a server without a cluster). */
export function jetStreamIdentity(info: StreamFacts): string {
  return `jetstream:${info.cluster?.name || '-'}/${info.config.name}@${info.created}`;
}

/** A memory store's identity: one per process. */
export function memoryStoreIdentity(): string {
  return `memory:${randomUUID()}`;
}
