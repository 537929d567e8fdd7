// A relay that accepts unsigned deliveries says so at start, and no relay forwards a browser's
// cross-site POST (Origin header, Sec-Fetch-Site cross-site) to the app (issue 20 item 13).
import { strict as assert } from 'node:assert';
import { post, relayProcesses, signed, spawnRelay, startTarget, tempDir, type RelayProcess, type TargetApp } from '../../support/helpers';

const SECRET = 'browser-refusal-secret-0123';

/** Resolves once the relay's stderr matches `re` (it is written before the listening line, on another pipe). */
function stderrMatching(relay: RelayProcess, re: RegExp): Promise<string> {
  return relay.saw(re, { in: 'stderr' }).then(() => relay.stderr());
}

describe('relay: unsigned-delivery warning and browser refusal (relay process)', function () {
  this.timeout(60_000);
  const procs = relayProcesses();
  let app: TargetApp;
  before(async () => (app = await startTarget()));
  after(async () => app.close());

  it('warns at start when unsigned deliveries are accepted, and refuses cross-site browser requests (403, nothing forwarded)', async () => {
    const relay = await spawnRelay(['--data', tempDir(), '--forward', app.url]);
    procs.push(relay);
    await stderrMatching(relay, /warning: channel 'default' and every implicit channel accept deliveries without a signature/);
    const refused: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const h of refused) {
      for (const path of ['/hooks', '/hooks/default', '/hooks/a.b']) {
        const r = await post(`${relay.url}${path}`, '{"from":"a web page"}', h);
        assert.equal(r.status, 403, `${path} ${JSON.stringify(h)}`);
        assert.match(JSON.stringify(r.json), /browser/);
      }
    }
    const ok = await post(`${relay.url}/hooks`, '{"from":"the service"}', { 'sec-fetch-site': 'none' });
    assert.equal(ok.status, 200);
    await app.waitFor(1);
    assert.deepEqual(
      app.received.map((r) => r.body.toString()),
      ['{"from":"the service"}'],
      'only the non-browser delivery reached the app',
    );
  });

  it('no warning when every channel needs a signature', async () => {
    const relay = await spawnRelay(['--data', tempDir(), '--secret', SECRET]);
    procs.push(relay);
    const body = '{}';
    assert.equal((await post(`${relay.url}/hooks`, body, signed(SECRET, body, { origin: 'https://evil.example' }))).status, 403, 'signed or not');
    // Its start-up lines are all out once it exits.
    await relay.stop('SIGTERM');
    assert.doesNotMatch(relay.stderr(), /without a signature/);
  });
});
