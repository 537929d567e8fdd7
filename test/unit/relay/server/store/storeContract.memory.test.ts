// The store contract (./storeContract.ts) over the in-memory log (relay/server/store/memoryLog.ts).
import { openMemoryStore } from '../../../../../relay/server/store/memoryLog';
import { storeContract } from './storeContract';

storeContract({
  name: 'in-memory log',
  open: (options) => openMemoryStore(options),
  clock: true,
});
