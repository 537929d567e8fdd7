// Which store a relay runs on, chosen by the `--store` URL through one table: file: (the default)
// → the file journal in the data folder, nats:// or tls:// → NATS JetStream, memory: → an
// in-memory log (gone when the relay stops). A new backend is a DeliveryLog (./deliveryLog.ts)
// and a row here (docs/store-backends.md).
import { RELAY_RETENTION } from '../../src/core/defaults';
import { DeliveryStore, type StoreOptions } from './store/store';
import type { SnapshotOptions } from './store/journalSnapshot';
import { openMemoryStore } from './store/memoryLog';
import { describeRanges, rangeCount } from './journal/journalLoss';
import { parseNatsServers } from './nats/urls';
import { retrying } from './nats/clusterRetry';
import type { ChannelConfigs } from './channels/channels';
import type { ChannelRegistry } from './channels/channelRegistry';
import type { SharedReplays } from './nats/replayShare';
import type { JetStreamHandles } from './metrics/jetstream';
import type { SharedForwarding } from './nats/sharedForwarding';
import type { SharedForwardingSettings } from './nats/wiring';
import type { JournalFs } from './journal/journalFs';
import type { RelayStore } from './base/storeTypes';
import type { SharedSessions } from './base/sessionShare';
import { fileStoreIdentity, jetStreamIdentity, memoryStoreIdentity } from './store/storeIdentity';

/** `--store` and the options that go with its backend. */
export interface StoreChoice {
  /** file: (default), nats://HOST:PORT[,…] or tls://… (JetStream), memory:. */
  url?: string;
  /** JetStream: --nats-creds, --nats-replicas, the streams' name prefix (default SH). */
  nats?: { credsFile?: string; replicas?: number; prefix?: string };
}

/** A `--store` value no backend takes, or one its backend refuses. */
export class StoreUrlError extends Error {
  override name = 'StoreUrlError';
}

/** What a backend is opened with. */
export interface StoreContext extends SharedForwardingSettings {
  url: string;
  choice: StoreChoice;
  dataDir: string;
  log: (line: string) => void;
  signal?: AbortSignal;
  segmentBytes?: number;
  retention?: { maxCount?: number; maxAgeMs?: number; maxRejected?: number };
  journalFs?: JournalFs;
  onSync?: StoreOptions['onSync'];
  /** The file journal's index snapshots (./store/journalSnapshot.ts); false: none; absent: the defaults. */
  snapshot?: SnapshotOptions | false;
}

export interface OpenedStore {
  store: RelayStore;
  /**
   * The file journal: resolves once the index is built. Until then the store takes appends (their
   * seqs follow the journal's last) but answers no query (relay/server/index.ts serves ingress only).
   */
  loading?: Promise<void>;
  /** The same on every instance of this store, another for another store (./store/storeIdentity.ts): the relay's hello names it. */
  identity: string;
  /** What the metrics and the log call it. */
  kind: string;
  /** Shared forwarding (JetStream): every instance's consumers forward; without it this process's forwarder does. */
  shared?: (channels: ChannelConfigs) => SharedForwarding;
  /** Keeps the API's channels in the store, shared by every instance; returns a stop function. */
  shareChannels?: (registry: ChannelRegistry) => Promise<() => void>;
  /** Keeps the page's sessions in the store, valid at every instance; returns a stop function. */
  shareSessions?: (sessions: SharedSessions) => Promise<() => void>;
  /** JetStream only: what the metrics read. */
  jetstream?: JetStreamHandles;
  /** Replays to subscribers reach every instance's (`local` sends to this one's); absent: this process's only. */
  shareReplays?: (local: (seq: number) => Promise<number>) => SharedReplays;
}

interface StoreBackend {
  kind: string;
  /** URL schemes, with the colon. */
  schemes: string[];
  /** How its URL is written (the usage error). */
  usage: string;
  /** Checks the URL before anything starts (the CLI's usage errors); throws StoreUrlError. */
  check?(url: string): void;
  open(ctx: StoreContext): Promise<OpenedStore>;
}

/** Without RelayOptions.retention: 100,000 accepted deliveries, 30 days (the CLI's --keep and --max-age defaults). */
const retentionOr = (r: StoreContext['retention']) => r ?? RELAY_RETENTION;

const BACKENDS: StoreBackend[] = [
  { kind: 'file', schemes: ['file:'], usage: 'file: (the default: the journal in the data folder)', open: openFileStore },
  {
    kind: 'jetstream',
    schemes: ['nats:', 'tls:'],
    usage: 'nats://HOST:PORT[,…] or tls://… (NATS JetStream)',
    check: (url) => {
      try {
        parseNatsServers(url);
      } catch (err) {
        throw new StoreUrlError((err as Error).message);
      }
    },
    // Loaded only for --store nats://…: the file journal never loads the NATS client.
    open: async (ctx) => {
      const opened = await (await import('./nats/wiring')).openNatsStore({ servers: ctx.url, ...ctx.choice.nats }, ctx, ctx.log, ctx.signal);
      const { manager, deliveryStream } = opened.jetstream;
      return { kind: 'jetstream', identity: jetStreamIdentity(await retrying(() => manager.streams.info(deliveryStream), ctx.log)), ...opened };
    },
  },
  {
    kind: 'memory',
    schemes: ['memory:'],
    usage: 'memory: (gone when the relay stops)',
    open: async (ctx) => ({ kind: 'memory', identity: memoryStoreIdentity(), store: await openMemoryStore({ retention: retentionOr(ctx.retention) }) }),
  },
];

/** The backend of a `--store` value (absent or `file`: the file journal); throws StoreUrlError. */
export function storeBackend(url: string | undefined): StoreBackend {
  const value = url === undefined || url === 'file' ? 'file:' : url;
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(value)?.[0].toLowerCase();
  const backend = BACKENDS.find((b) => scheme !== undefined && b.schemes.includes(scheme));
  if (!backend) throw new StoreUrlError(`--store: '${url}' names no store; use ${BACKENDS.map((b) => b.usage).join(', or ')}`);
  backend.check?.(value);
  return backend;
}

/** Opens the store `choice` names. */
export function openStore(choice: StoreChoice | undefined, ctx: Omit<StoreContext, 'url' | 'choice'>): Promise<OpenedStore> {
  const url = choice?.url ?? 'file:';
  return storeBackend(url).open({ ...ctx, url, choice: choice ?? {} });
}

async function openFileStore(ctx: StoreContext): Promise<OpenedStore> {
  const { dataDir, log } = ctx;
  const { store, loaded } = await DeliveryStore.openAppending(dataDir, {
    segmentBytes: ctx.segmentBytes,
    retention: retentionOr(ctx.retention),
    onTruncate: (t) =>
      log(
        t.sealed
          ? `journal: ERROR: sealed segment ${t.segment} is cut short: dropped ${t.dropped} bytes of a partial record at offset ${t.offset} (damage, not a torn write)`
          : `journal: truncated a torn tail of ${t.dropped} bytes in segment ${t.segment} at offset ${t.offset}`,
      ),
    onLoss: (ranges) => log(`journal: ERROR: ${rangeCount(ranges)} acknowledged deliveries are lost: ${describeRanges(ranges)}`),
    onCorrupt: (c) => log(`journal: skipped ${c.bytes} damaged bytes in segment ${c.segment} at offset ${c.offset}; the records after them are kept`),
    onRebuild: (r) => log(`journal: segment ${r.segment} has no valid index file; reading its ${(r.bytes / 1048576).toFixed(1)} MiB to rebuild it (once)`),
    onProblem: (line) => log(`journal: ${line}`),
    onWriteError: (err, fatal) => log(writeErrorLine(dataDir, err, fatal)),
    onSeqDamaged: (d) =>
      log(
        `journal: ERROR: the seq file ${d.path} is damaged; numbering resumes after the journal's last seq ${d.resumedAt} (a seq given out above it before a crash may be given out again)`,
      ),
    fs: ctx.journalFs,
    onSync: ctx.onSync,
    snapshot: ctx.snapshot ?? {},
  });
  return { store, kind: 'file', identity: fileStoreIdentity(dataDir), loading: loaded.then(() => store.applyRetention()) };
}

function writeErrorLine(dataDir: string, err: Error | undefined, fatal: boolean): string {
  if (!err) return 'journal: writes work again; the relay is ready (/readyz)';
  const code = (err as NodeJS.ErrnoException).code ?? (err.cause as NodeJS.ErrnoException | undefined)?.code;
  const why =
    code === 'EROFS' || code === 'EACCES' || code === 'EPERM'
      ? ` (the data folder ${dataDir} is not writable)`
      : code === 'ENOSPC'
        ? ` (the disk of ${dataDir} is full)`
        : '';
  if (fatal) return `journal: ERROR: ${err.message}${why}; every delivery is refused with 503 until the relay is restarted (/healthz and /readyz answer 503)`;
  return `journal: ERROR: a write failed${why}: ${err.message}; deliveries are refused until a write succeeds (/readyz answers 503)`;
}
