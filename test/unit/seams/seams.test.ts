// Pins issue 36's "test that finds the next seam": random sequences of channel lifecycle steps
// (create through the API and through --config, implicit by posting, delete, create again, rotate,
// restart, prune), deliveries (signed with the current, an earlier, the --config or a wrong secret,
// or unsigned), live watchers, and tokens (admin, each channel's, a deleted channel's), then a read
// of every surface with every token against a small model of who may see what
// (test/unit/seams/model.ts), on the file journal, and every refusal (each REST route, /ws, the page,
// /metrics: status and message) with those tokens and with none and a wrong one (./refusals.ts says
// what it leaves out, and why). A difference fails with the shortest sequence fast-check finds,
// printed step by step with each surface and token that disagreed.
import { announceKnownSeams, checkSeams } from './steps';
import { FILE_JOURNAL } from './relayUnderTest';
import { CLI_READERS } from './cliReaders';

/** More runs (or one seed) for a hunt: SEAMS_RUNS=500 SEAMS_SEED=… npx mocha test/unit/seams/seams.test.ts */
const runs = (n: number) => Number(process.env.SEAMS_RUNS ?? n);
const seed = process.env.SEAMS_SEED === undefined ? undefined : Number(process.env.SEAMS_SEED);

describe('seams: who may see what, on every surface (issue 36, file journal)', function () {
  this.timeout(120_000);
  before(announceKnownSeams);

  it('API, WebSocket, page and /metrics agree with the model', async () => {
    const t = await checkSeams({ store: FILE_JOURNAL, numRuns: runs(100), maxLength: 12, seed });
    console.log(`    seams: ${t.runs} sequences, ${t.steps} steps (${t.kinds}), ${t.reads} reads`);
  });

  it('and the CLI (deliveries, replay, forward) at the end of a few sequences', async () => {
    const t = await checkSeams({ store: FILE_JOURNAL, numRuns: Math.ceil(runs(100) / 25), maxLength: 8, seed, cliReaders: CLI_READERS });
    console.log(`    seams: ${t.runs} sequences, ${t.steps} steps (${t.kinds}), ${t.reads} reads (CLI included)`);
  });
});
