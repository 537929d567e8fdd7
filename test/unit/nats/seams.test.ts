// Pins issue 36's model-based seams test (test/unit/seams/) on NATS JetStream: the same random
// sequences of channel lifecycle steps, deliveries and tokens, read on every surface with every
// token against the model of who may see what, with fewer runs: each sequence on a relay process
// with --store nats:// and a real --config file, on a nats-server of its own.
import { announceKnownSeams, checkSeams } from '../seams/steps';
import { JETSTREAM } from '../seams/relayUnderTest';

describe('seams: who may see what, on every surface (issue 36, JetStream)', function () {
  this.timeout(240_000);
  before(announceKnownSeams);

  it('API, WebSocket, page and /metrics agree with the model', async () => {
    const t = await checkSeams({ store: JETSTREAM, numRuns: Number(process.env.SEAMS_RUNS ?? 10), maxLength: 10 });
    console.log(`    seams: ${t.runs} sequences, ${t.steps} steps (${t.kinds}), ${t.reads} reads`);
  });
});
