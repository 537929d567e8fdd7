// The relay's default store: the file journal (../journalLog.ts) under the index every backend
// shares (../logStore.ts). At open it rebuilds the index from the sealed segments' index files and
// a scan of the current segment only; headers and bodies stay on disk.
import { JournalLog, type JournalLogOptions } from './journalLog';
import { LogStore, type LogStoreOptions } from './logStore';

export { headerRecord, type Entry } from './logStore';
export type { DeliveryMeta, RelayStore, StoreEvents, StoredDelivery } from '../base/storeTypes';

export type StoreOptions = JournalLogOptions & LogStoreOptions;

export class DeliveryStore extends LogStore<JournalLog> {
  static async open(dir: string, options: StoreOptions = {}): Promise<DeliveryStore> {
    const store = new DeliveryStore(new JournalLog(dir, options), options);
    await store.start();
    return store;
  }

  /** Lets go of the files without a clean stop (no checkpoint, no exact seq mark): a kill, for tests. */
  release(): Promise<void> {
    return this.log.release();
  }
}
