// The relay's default store: the file journal (../journalLog.ts) under the index every backend
// shares (../logStore.ts). At open it rebuilds the index from the sealed segments' index files and
// a scan of the current segment only; headers and bodies stay on disk.
import { JournalLog, type JournalLogOptions } from './journalLog';
import { join } from 'node:path';
import { LogStore, type LogStoreOptions } from './logStore';
import { CHANNEL_LASTS_FILE } from './channelLasts';

export { headerRecord, type Entry } from './logStore';
export type { DeliveryMeta, RelayStore, StoreEvents, StoredDelivery } from '../base/storeTypes';

export type StoreOptions = JournalLogOptions & LogStoreOptions;

export class DeliveryStore extends LogStore<JournalLog> {
  static async open(dir: string, options: StoreOptions = {}): Promise<DeliveryStore> {
    const store = new DeliveryStore(new JournalLog(dir, options), withLasts(dir, options));
    await store.start();
    return store;
  }

  /**
   * Opens the journal for appends after reading its last segment only; `loaded` resolves once the
   * index holds everything (queries answer from it only then: see relay/server/index.ts).
   */
  static async openAppending(dir: string, options: StoreOptions = {}): Promise<{ store: DeliveryStore; loaded: Promise<void> }> {
    const store = new DeliveryStore(new JournalLog(dir, options), withLasts(dir, options));
    await store.startAppending();
    return { store, loaded: store.finishLoad() };
  }

  /** Lets go of the files without a clean stop (no checkpoint, no exact seq mark): a kill, for tests. */
  release(): Promise<void> {
    return this.log.release();
  }
}

/** Both ways of opening keep each channel identity's last seq in the data folder (./channelLasts.ts). */
function withLasts(dir: string, options: StoreOptions): StoreOptions {
  return { lastsFile: join(dir, CHANNEL_LASTS_FILE), ...options };
}
