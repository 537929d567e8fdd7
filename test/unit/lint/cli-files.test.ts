// `service-hooks lint` on file names and bytes that once went wrong (#25 defects 2-4), as a real
// process on real files: SARIF offsets in a file with a byte-order mark, existing files named like
// a glob, a backslash in a Linux file name.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../relay/support/helpers';
import { makeTempDir } from '../tempDirs';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(cwd: string, args: string[]): Promise<Run> {
  const path = await cli();
  return new Promise((resolve) => {
    execFile(process.execPath, [path, 'lint', ...args], { cwd, env: { PATH: process.env.PATH } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const WORKFLOW = 'on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: echo ${{ github.event.ref }}\n';

function repo(files: Record<string, string>): string {
  const dir = makeTempDir('sh-lint-files-');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('service-hooks lint: file names and bytes', function () {
  this.timeout(60_000);

  it('SARIF charOffset does not count a byte-order mark (SARIF 2.1.0 §3.30.2)', async () => {
    const dir = repo({ 'bom.yml': '\ufeff' + WORKFLOW, 'plain.yml': WORKFLOW });
    const r = await run(dir, ['bom.yml', 'plain.yml', '--format', 'sarif']);
    assert.equal(r.code, 1, r.stderr);
    const results = JSON.parse(r.stdout).runs[0].results;
    assert.equal(results.length, 2);
    const expected = WORKFLOW.indexOf('github.event');
    for (const res of results) {
      const region = res.locations[0].physicalLocation.region;
      assert.equal(region.charOffset, expected, res.locations[0].physicalLocation.artifactLocation.uri);
      assert.deepEqual(res.fixes[0].artifactChanges[0].replacements[0].deletedRegion, region);
      assert.equal(region.startColumn, WORKFLOW.split('\n')[5]!.indexOf('github.event') + 1);
    }
  });

  it('an existing file named with [..] or {..} is that file, not a glob; a missing one is still a glob', async () => {
    const dir = repo({ 'a[1].yml': WORKFLOW, 'b{x,y}.yml': WORKFLOW, 'a1.yml': 'on: push\n' });
    const r = await run(dir, ['a[1].yml', 'b{x,y}.yml']);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr.includes('no such file'), false, r.stderr);
    assert.match(r.stdout, /^a\[1\]\.yml:6:23: error/m);
    assert.match(r.stdout, /^b\{x,y\}\.yml:6:23: error/m);
    const glob = await run(dir, ['a[0-9].yml']);
    assert.equal(glob.code, 0, glob.stderr); // matches a1.yml only, which is clean
  });

  it('a backslash in a file name (not Windows) is part of the name: read, linted and addressed as such', async function () {
    if (process.platform === 'win32') this.skip();
    const dir = repo({ 'back\\slash.yml': WORKFLOW });
    const byName = await run(dir, ['back\\slash.yml']);
    assert.equal(byName.code, 1, byName.stderr);
    assert.match(byName.stdout, /^back\\slash\.yml:6:23: error/m);
    const search = await run(dir, ['.', '--format', 'sarif']);
    assert.equal(search.code, 1, search.stderr);
    const [res] = JSON.parse(search.stdout).runs[0].results;
    assert.equal(res.locations[0].physicalLocation.artifactLocation.uri, 'back%5Cslash.yml');
    const report = await run(dir, ['.', '--report']);
    assert.equal(report.code, 1, report.stderr);
    assert.match(report.stdout, /0 file\(s\) are already portable/);
    assert.match(report.stdout, /\[back\\\\slash\.yml\]\(back%5Cslash\.yml#L6\)/);
  });
});
