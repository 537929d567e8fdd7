// The relay the seams test drives: an in-process relay (startRelay) on one data folder, started
// again on each restart with the --config channels of the moment (the `channels` option, which is
// what `relay --config FILE` turns the file's "channels" into), on the file journal or JetStream.
import { startRelay, type RelayServer } from '../../../relay/server';
import type { StoreChoice } from '../../../relay/server/store/storeBackends';
import { tempDir } from '../relay/helpers';
import { configSecret } from './model';

export const ADMIN_TOKEN = 'seams-admin-token-0123456789abcdef';

export interface StoreUnderTest {
  /** What the output calls it. */
  name: string;
  /** undefined: the file journal in the data folder. */
  choice?: () => StoreChoice;
}

export const FILE_JOURNAL: StoreUnderTest = { name: 'file journal' };

export class RelayUnderTest {
  private relay!: RelayServer;
  private readonly dataDir = tempDir('sh-seams-');
  private readonly store?: StoreChoice;

  constructor(store: StoreUnderTest) {
    this.store = store.choice?.();
  }

  get url(): string {
    return this.relay.url;
  }

  /** The newest seq the relay gave out (a rejected delivery's, which its 401 does not tell). */
  get lastSeq(): number {
    return this.relay.store.lastSeq;
  }

  async start(config: Iterable<string>): Promise<void> {
    this.relay = await startRelay({
      port: 0,
      dataDir: this.dataDir,
      token: ADMIN_TOKEN,
      // Small segments: a restart reads sealed segments through their index files too.
      segmentBytes: 2048,
      channels: Object.fromEntries([...config].map((n) => [n, { secrets: [configSecret(n)] }])),
      // The steps post many rejected deliveries from one address: no 429 in the way of the model.
      rejectLimits: { perSource: { burst: 10_000, perMinute: 10_000 }, total: { burst: 10_000, perMinute: 10_000 } },
      ...(this.store ? { store: this.store } : {}),
    });
  }

  async restart(config: Iterable<string>): Promise<void> {
    await this.relay.close();
    await this.start(config);
  }

  close(): Promise<void> {
    return this.relay.close();
  }
}
