// The CLI's cold start: the split build (scripts/cliBuild.mjs, as in dist/) gives the dispatcher
// no dependency and no command, and `lint` a bundle without undici, ws or the other commands;
// run as real processes with every other command bundle deleted, `--help` and `lint` still work.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';
import { COMMANDS } from '../../../relay/commandTable';
import { tempDir } from '../relay/support/helpers';

type Built = { dispatcher: { metafile: Metafile }; commands: { metafile: Metafile } };

function run(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, env: { PATH: process.env.PATH } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function inputsOf(meta: Metafile, outputSuffix: string): string[] {
  const key = Object.keys(meta.outputs).find((k) => k.endsWith(outputSuffix));
  assert.ok(key, `no output ${outputSuffix} in ${Object.keys(meta.outputs).join(', ')}`);
  return Object.keys(meta.outputs[key]!.inputs);
}

describe('CLI cold start (split build)', function () {
  this.timeout(60_000);
  let out: string;
  let built: Built;

  before(async () => {
    out = tempDir('sh-cli-split-');
    const { buildCli } = await import('../../../scripts/cliBuild.mjs');
    built = (await buildCli(out, { metafile: true })) as Built;
  });

  it('builds one bundle per command in the table', () => {
    const names = readdirSync(join(out, 'commands'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => f.replace(/\.js$/, ''));
    assert.deepEqual(names.sort(), COMMANDS.map((c) => c.name).sort());
  });

  it('the dispatcher holds no dependency and no command', () => {
    const inputs = inputsOf(built.dispatcher.metafile, 'cli.js');
    assert.deepEqual(
      inputs.filter((i) => i.includes('node_modules') || i.includes('relay/commands/')),
      [],
    );
  });

  it('the lint bundle holds no network code and no other command', () => {
    const inputs = inputsOf(built.commands.metafile, 'lint.js');
    assert.deepEqual(
      inputs.filter((i) => /node_modules\/(undici|ws)\//.test(i) || /relay\/(server|client|emulator)\//.test(i)),
      [],
    );
    assert.deepEqual(
      inputs.filter((i) => i.startsWith('relay/commands/')),
      ['relay/commands/lint.ts'],
    );
  });

  it('--help and lint run as processes with every other command bundle deleted', async () => {
    for (const f of readdirSync(join(out, 'commands'))) if (!f.startsWith('lint.')) rmSync(join(out, 'commands', f));
    const help = await run(out, [join(out, 'cli.js'), '--help']);
    assert.equal(help.code, 0, help.stderr);
    for (const c of COMMANDS) assert.match(help.stdout, new RegExp(`^  ${c.name} +${c.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    writeFileSync(join(out, 'w.yml'), 'on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: echo ${{ github.event.ref }}\n');
    const lint = await run(out, [join(out, 'cli.js'), 'lint', 'w.yml']);
    assert.equal(lint.code, 1, lint.stderr);
    assert.match(lint.stdout, /^w\.yml:6:23: error `github\.event` is `service\.event`/m);
    const usage = await run(out, [join(out, 'cli.js'), 'lint', '--bogus']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /Run 'service-hooks lint --help' for usage/);
  });
});
