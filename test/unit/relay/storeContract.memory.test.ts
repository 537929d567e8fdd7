// The store contract (./storeContract.ts) over the in-memory log (relay/server/memoryLog.ts).
import { openMemoryStore } from '../../../relay/server/memoryLog';
import { storeContract } from './storeContract';

storeContract({
  name: 'in-memory log',
  open: (options) => openMemoryStore(options),
  clock: true,
  storeRetention: true,
});
