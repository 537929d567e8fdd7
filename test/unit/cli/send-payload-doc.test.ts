// #25 defect 6: the CLI reference's promise (docs/cli.md, once in the README) about `send --payload` matches what the CLI does with bytes
// that are not JSON (refused, exit 2, nothing sent), as a real child process against a real receiver.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cli, startTarget, tempDir } from '../relay/support/helpers';

async function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [await cli(), ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH } });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.end('');
  const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
  return { code, stderr };
}

describe('send --payload: docs/cli.md and behaviour agree', function () {
  this.timeout(60_000);

  it('docs/cli.md says a payload must be JSON and is refused otherwise; the CLI refuses it with exit 2 and sends nothing', async () => {
    const readme = readFileSync(resolve(__dirname, '../../../docs/cli.md'), 'utf8');
    const bullet = /^- `send` posts[\s\S]*?(?=^- )/m.exec(readme)?.[0] ?? '';
    assert.match(bullet, /must be UTF-8 JSON/, bullet);
    assert.match(bullet, /empty one included\) is refused with exit 2/, bullet);
    const target = await startTarget();
    try {
      const dir = tempDir('sh-send-doc-');
      for (const [name, bytes] of [
        ['empty.json', ''],
        ['text.txt', 'hello'],
        ['latin1.json', Buffer.from([0x7b, 0xe9, 0x7d])],
      ] as const) {
        const file = join(dir, name);
        writeFileSync(file, bytes);
        const r = await run(['send', 'push', '--to', target.url, '--payload', file]);
        assert.equal(r.code, 2, `${name}: ${r.stderr}`);
        assert.match(r.stderr, /--payload .*(not valid JSON|not valid UTF-8)/, name);
      }
      assert.equal(target.received.length, 0);
    } finally {
      await target.close();
    }
  });
});
