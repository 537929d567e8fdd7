// The store contract (./storeContract.ts) over the file journal (relay/server/journal/journalLog.ts), in a
// fresh folder per store; its faults are real failing writes (../../support/faultyFs.ts).
import { strict as assert } from 'node:assert';
import { DeliveryStore } from '../../../../../relay/server/store/store';
import { FaultyFs } from '../../support/faultyFs';
import { tempDir } from '../../support/helpers';
import { storeContract } from './storeContract';

let dir = '';
let fs = new FaultyFs();

storeContract({
  name: 'file journal',
  open: (options) => {
    dir = tempDir('sh-store-contract-');
    fs = new FaultyFs();
    return DeliveryStore.open(dir, { ...options, segmentBytes: 4096, fs });
  },
  reopen: (options) => DeliveryStore.open(dir, { ...options, segmentBytes: 4096 }),
  clock: true,
  fault: async (store) => {
    fs.fail('writev', { code: 'ENOSPC', times: 1 }); // the disk is full for one write
    await assert.rejects(store.add({ channel: 'default', verification: 'verified', headers: [], targets: [] }, Buffer.from('refused')), /ENOSPC/);
    return { heal: async () => fs.clear() };
  },
});
