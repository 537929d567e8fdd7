// Empty secrets are refused everywhere (issue 10.5): the CLI flag and the config file exit 2,
// startRelay throws RelayConfigError, and a delivery signed with the empty key is never verified.
// Short secrets start with a warning that does not show the secret.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { RelayConfigError, startRelay } from '../../../../../relay/server';
import { cli, post, spawnRelay, tempDir } from '../../support/helpers';

async function run(args: string[]): Promise<{ code: number; stderr: string }> {
  const child = spawn(process.execPath, [await cli(), 'relay', '--port', '0', '--data', tempDir(), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout.resume();
  const [code] = (await once(child, 'exit')) as [number];
  return { code, stderr };
}

function configFile(content: unknown): string {
  const file = join(tempDir(), 'relay.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

describe('relay secrets', function () {
  this.timeout(60_000);

  it("exits 2 for --secret ''", async () => {
    const r = await run(['--secret', 'a-long-enough-secret-1234', '--secret', '']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--secret must not be empty/);
  });

  for (const cfg of [{ secrets: [''] }, { channels: { billing: { secrets: ['ok-secret-0123456789', ''] } } }]) {
    it(`exits 2 for a config with an empty secret: ${JSON.stringify(cfg)}`, async () => {
      const r = await run(['--config', configFile(cfg)]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /holds an empty secret/);
    });
  }

  it('startRelay throws RelayConfigError for an empty secret, relay-wide or per channel', async () => {
    for (const options of [{ secrets: [''] }, { channels: { x: { secrets: [''] } } }]) {
      await assert.rejects(startRelay({ port: 0, dataDir: tempDir(), ...options }), RelayConfigError);
    }
  });

  it('rejects (401) a delivery signed with the empty key when a real secret is set', async () => {
    const relay = await startRelay({ port: 0, dataDir: tempDir(), secrets: ['a-long-enough-secret-1234'] });
    try {
      const body = '{"forged":true}';
      const forged = 'sha256=' + createHmac('sha256', '').update(body).digest('hex');
      assert.equal((await post(`${relay.url}/hooks/default`, body, { 'x-service-signature': forged })).status, 401);
    } finally {
      await relay.close();
    }
  });

  it('warns about a secret shorter than 16 bytes without printing it', async () => {
    const relay = await spawnRelay(['--data', tempDir(), '--secret', 'shorty', '--secret', 'a-long-enough-secret-1234']);
    try {
      // stderr and stdout are separate pipes: the warning may arrive after the listening line.
      await relay.saw(/warning/, { in: 'stderr' });
      assert.match(relay.stderr(), /relay: warning: secret #1 of the relay-wide secrets has 6 bytes; use at least 16/);
      assert.doesNotMatch(relay.stderr(), /shorty|a-long-enough/);
      assert.doesNotMatch(relay.stderr(), /secret #2/);
    } finally {
      await relay.stop();
    }
  });
});
