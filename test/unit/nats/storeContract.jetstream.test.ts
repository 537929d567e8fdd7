// The store contract (../relay/server/store/storeContract.ts) over NATS JetStream (relay/server/nats/natsStore.ts)
// on a real nats-server this test starts: a fresh stream prefix per store; "another" is a second
// relay instance on the same streams; the fault is the server killed and started again.
import { NatsStore } from '../../../relay/server/nats/natsStore';
import { connectNats } from '../../../relay/server/nats/connect';
import type { LogStoreOptions } from '../../../relay/server/store/logStore';
import { storeContract, type ContractStore } from '../relay/server/store/storeContract';
import { startNats, type NatsCluster } from './natsServers';
import { join } from 'node:path';
import { tempDir } from '../relay/support/helpers';

let nats: NatsCluster | undefined;
let prefix = '';
let n = 0;
/** Where each prefix's store keeps its channel identities' last seqs (as a relay does in its --data folder). */
const dataDir = tempDir('sh-contract-js-');
/** Log lines of the stores (health changes are said there). */
const seen: { line: string; wake: (() => void)[] } = { line: '', wake: [] };
const log = (line: string) => {
  seen.line += `${line}\n`;
  for (const w of seen.wake.splice(0)) w();
};
const said = (re: RegExp, from: number) =>
  new Promise<void>((resolve) => {
    const check = () => (re.test(seen.line.slice(from)) ? resolve() : seen.wake.push(check));
    check();
  });

async function openOn(p: string, o: LogStoreOptions = {}): Promise<ContractStore> {
  if (!nats) throw new Error('nats-server did not start');
  return NatsStore.open(await connectNats({ servers: nats.urls }), {
    prefix: p,
    log,
    publishBudgetMs: 3000,
    lastsFile: join(dataDir, `${p}-lasts.json`),
    ...(o.retention ? { retention: o.retention } : {}),
  });
}

describe('store contract on JetStream (real nats-server)', function () {
  this.timeout(120_000); // the first start may install nats-server
  before(async () => (nats = await startNats(1)));
  after(async () => nats?.stop());

  storeContract({
    name: 'JetStream',
    open: (o) => openOn((prefix = `C${++n}`), o),
    reopen: () => openOn(prefix),
    another: () => openOn(prefix),
    clock: false,
    fault: async () => {
      const from = seen.line.length;
      await nats!.nodes[0]!.kill();
      await said(/lost the connection to NATS/, from);
      return {
        heal: async () => {
          const back = seen.line.length;
          await nats!.nodes[0]!.start();
          await said(/connected to NATS again/, back);
        },
      };
    },
  });
});
