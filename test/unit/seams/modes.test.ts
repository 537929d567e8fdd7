// Pairwise over --public, TLS and --allow-cidr (./modes.ts PAIRWISE: 4 rows beside seams.test.ts's
// plain one, not all 8), on the file journal, and the row with all three on JetStream: the same random
// sequences of channel lifecycle steps, deliveries and tokens (admin, each channel's, a deleted
// channel's), read on every surface (API, WebSocket, page, /metrics) against the model.
import { announceKnownSeams, checkSeams } from './steps';
import { FILE_JOURNAL, JETSTREAM } from './relayUnderTest';
import { PAIRWISE, modeText } from './modes';

const runs = (n: number) => Number(process.env.SEAMS_RUNS ?? n);

describe('seams: who may see what with --public, TLS and --allow-cidr (pairwise)', function () {
  this.timeout(240_000);
  before(announceKnownSeams);

  for (const mode of PAIRWISE) {
    it(`file journal, ${modeText(mode)}`, async () => {
      const t = await checkSeams({ store: FILE_JOURNAL, mode, numRuns: runs(25), maxLength: 10 });
      console.log(`    seams: ${t.runs} sequences, ${t.steps} steps (${t.kinds}), ${t.reads} reads`);
    });
  }

  it(`JetStream, ${modeText({ public: true, tls: true, allowCidr: true })}`, async () => {
    const t = await checkSeams({ store: JETSTREAM, mode: { public: true, tls: true, allowCidr: true }, numRuns: runs(4), maxLength: 8 });
    console.log(`    seams: ${t.runs} sequences, ${t.steps} steps (${t.kinds}), ${t.reads} reads`);
  });
});
