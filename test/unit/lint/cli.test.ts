// `service-hooks lint` as a real process (the bundled CLI) on real files in a temp folder; colour
// through the in-process entry with a fake TTY.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import lintCommand from '../../../relay/commands/lint';
import { applyFixes, BUILTIN_RULES, lintText, NOTE_RULES } from '../../../src/core/lint';
import { cli } from '../relay/support/helpers';
import { makeTempDir } from '../tempDirs';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return cli().then(
    (path) =>
      new Promise((resolve) => {
        execFile(process.execPath, [path, 'lint', ...args], { cwd, env: { PATH: process.env.PATH, ...env } }, (err, stdout, stderr) =>
          resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      }),
  );
}

const WORKFLOW = `# comment\non: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/github-script@v7\n      - run: echo \${{ github.event.ref }}\n`;
const WARN_ONLY = `on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/github-script@60a0d83039c74a4aee543508d2ffcb1c3799cdea\n`;

function repo(files: Record<string, string>): string {
  const dir = makeTempDir('sh-lint-cli-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe('service-hooks lint (CLI)', function () {
  this.timeout(60_000);

  it('lints .github/workflows and the configured folders by default, compiler-style, exit 1 on errors', async () => {
    const dir = repo({
      '.github/workflows/ci.yml': WORKFLOW,
      '.github/workflows/nested/more.yaml': WORKFLOW,
      '.github/workflows/notes.txt': 'github.event',
      '.service/workflows/svc.yml': 'on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - uses: acme/old@v1\n',
      '.service-hooks.json': JSON.stringify({ lint: { workflowDirs: ['.service/workflows'], rules: [{ kind: 'action', from: 'acme/old', to: 'acme/new' }] } }),
    });
    const r = await run(dir, []);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(
      r.stdout,
      [
        '.github/workflows/ci.yml:7:15: error the action `actions/github-script` is `service/script` on the service [action-script]',
        '.github/workflows/ci.yml:8:23: error `github.event` is `service.event` on the service [context-event]',
        '.github/workflows/nested/more.yaml:7:15: error the action `actions/github-script` is `service/script` on the service [action-script]',
        '.github/workflows/nested/more.yaml:8:23: error `github.event` is `service.event` on the service [context-event]',
        '.service/workflows/svc.yml:6:15: error the action `acme/old` is `acme/new` on the service [extra-action-1]',
        '',
      ].join('\n'),
    );
    assert.match(r.stderr, /5 error\(s\), 0 warning\(s\) in 3 file\(s\)/);
  });

  it('--fix rewrites atomically, keeps mode, CRLF and BOM, reports what remains, and a second --fix changes nothing', async () => {
    const crlf = '\uFEFF' + WORKFLOW.replace(/\n/g, '\r\n');
    const dir = repo({ 'wf/a.yml': crlf, 'wf/warn.yml': WARN_ONLY, 'wf/clean.yml': 'on: push\n' });
    chmodSync(join(dir, 'wf/a.yml'), 0o640);
    const before = statSync(join(dir, 'wf/a.yml')).ino;
    const first = await run(dir, ['wf', '--fix']);
    assert.equal(first.code, 0, first.stderr); // only a warning remains
    assert.equal(first.stdout.trim().split('\n').length, 1);
    assert.match(first.stdout, /^wf\/warn\.yml:6:15: warning .* \[action-pinned-sha\]$/m);
    assert.match(first.stderr, /fixed 2 in 1 file\(s\)/);
    const fixed = readFileSync(join(dir, 'wf/a.yml'), 'utf8');
    assert.equal(fixed, applyFixes(crlf, lintText(crlf)));
    assert.ok(fixed.startsWith('\uFEFF# comment\r\n') && fixed.includes('uses: service/script@v7\r\n') && fixed.includes('${{ service.event.ref }}'));
    assert.equal(statSync(join(dir, 'wf/a.yml')).mode & 0o777, 0o640);
    assert.equal(readFileSync(join(dir, 'wf/warn.yml'), 'utf8'), WARN_ONLY);
    const inode = statSync(join(dir, 'wf/a.yml')).ino;
    assert.notEqual(inode, before, 'written to a temp file and renamed over the original');
    assert.deepEqual(readdirSync(join(dir, 'wf')).sort(), ['a.yml', 'clean.yml', 'warn.yml'], 'no temp file left');
    const second = await run(dir, ['wf', '--fix']);
    assert.equal(second.code, 0);
    assert.match(second.stderr, /fixed 0 in 0 file\(s\)/);
    assert.equal(readFileSync(join(dir, 'wf/a.yml'), 'utf8'), fixed);
    assert.equal(statSync(join(dir, 'wf/a.yml')).ino, inode, 'not rewritten');
  });

  it('lints composite actions (action.yml / action.yaml anywhere but node_modules and .git) by default', async () => {
    const action = 'name: a\ndescription: d\nruns:\n  using: composite\n  steps:\n    - uses: actions/github-script@v7\n';
    const dir = repo({
      'sub/act/action.yml': action,
      'other/action.yaml': action,
      'node_modules/x/action.yml': action,
      '.git/action.yml': action,
      'README.md': 'x',
    });
    const r = await run(dir, ['--format', 'json']);
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(
      (JSON.parse(r.stdout) as { file: string; rule: string; line: number }[]).map((f) => `${f.file}:${f.line} ${f.rule}`),
      ['other/action.yaml:6 action-script', 'sub/act/action.yml:6 action-script'],
    );
  });

  it('--fix leaves a SHA pin with a version comment alone; --fix-pinned uses the version the comment names', async () => {
    const pinned = `on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - uses: actions/github-script@60a0d83039c74a4aee543508d2ffcb1c3799cdea # v8.0.0\n      - run: echo \${{ github.event.ref }}\n`;
    const dir = repo({ 'w.yml': pinned });
    const fix = await run(dir, ['w.yml', '--fix']);
    assert.equal(fix.code, 0, fix.stderr);
    assert.match(fix.stdout, /^w\.yml:6:15: warning .*or use `service\/script@v8\.0\.0`, the version the comment names \[action-pinned-sha\]$/m);
    assert.equal(readFileSync(join(dir, 'w.yml'), 'utf8'), pinned.replace('github.event', 'service.event'));
    const pin = await run(dir, ['w.yml', '--fix-pinned']);
    assert.equal(pin.code, 0, pin.stderr);
    assert.equal(pin.stdout, '');
    assert.match(pin.stderr, /fixed 1 in 1 file\(s\)/);
    assert.equal(
      readFileSync(join(dir, 'w.yml'), 'utf8'),
      pinned
        .replace('github.event', 'service.event')
        .replace('actions/github-script@60a0d83039c74a4aee543508d2ffcb1c3799cdea # v8.0.0', 'service/script@v8.0.0'),
      'the comment that only repeated the ref is gone',
    );
  });

  it('--report prints the Markdown port report with links to each line', async () => {
    const dir = repo({ '.github/workflows/a#1.yml': WORKFLOW, '.github/workflows/w.yml': WARN_ONLY, '.github/workflows/ok.yml': 'on: push\n' });
    const r = await run(dir, ['--report']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stdout,
      /^# Workflow port report\n\n3 file\(s\) checked: 2 rename\(s\) in 1 file\(s\) are applied by `service-hooks lint --fix`; 1 finding\(s\) in 1 file\(s\) need a decision; 1 file\(s\) are already portable\./,
    );
    assert.match(r.stdout, /^\| \[\.github\/workflows\/a#1\.yml\]\(\.github\/workflows\/a%231\.yml#L7\) \| 2 \| `action-script` 1, `context-event` 1 \|$/m);
    assert.match(r.stdout, /^### `action-pinned-sha` \(1\)$/m);
    assert.match(
      r.stdout,
      /^- \[\.github\/workflows\/w\.yml:6\]\(\.github\/workflows\/w\.yml#L6\): the action `actions\/github-script` is `service\/script` on the service, but it is pinned/m,
    );
    assert.match(r.stdout, /^## Already portable\n\n- \[\.github\/workflows\/ok\.yml\]\(\.github\/workflows\/ok\.yml#L1\)$/m);
    assert.equal((await run(dir, ['--report', '--format', 'json'])).code, 2);
  });

  it('--format json is an array of 1-based findings with the documented keys', async () => {
    const dir = repo({ 'a.yml': WORKFLOW, 'w.yml': WARN_ONLY });
    const r = await run(dir, ['a.yml', 'w.yml', '--format', 'json']);
    assert.equal(r.code, 1);
    const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
    assert.deepEqual(rows[1], {
      file: 'a.yml',
      line: 8,
      column: 23,
      endLine: 8,
      endColumn: 29,
      rule: 'context-event',
      severity: 'error',
      message: '`github.event` is `service.event` on the service',
      replacement: 'service',
    });
    assert.equal(rows[2]!.replacement, null);
    assert.equal(rows[2]!.severity, 'warning');
    assert.equal(r.stderr, '');
  });

  it('--format sarif is SARIF 2.1.0 with the rule table, regions and fixes', async () => {
    const dir = repo({ 'a.yml': WORKFLOW, 'w.yml': WARN_ONLY });
    const r = await run(dir, ['a.yml', 'w.yml', '--format', 'sarif']);
    assert.equal(r.code, 1);
    const log = JSON.parse(r.stdout);
    assert.equal(log.version, '2.1.0');
    const runObj = log.runs[0];
    const ids = runObj.tool.driver.rules.map((x: { id: string }) => x.id);
    for (const { id } of [...BUILTIN_RULES, ...NOTE_RULES]) assert.ok(ids.includes(id), `the SARIF rule table lists ${id}`);
    const [first, , warn] = runObj.results;
    assert.equal(ids[first.ruleIndex], 'action-script');
    assert.deepEqual(first.locations[0].physicalLocation.region, {
      startLine: 7,
      startColumn: 15,
      endLine: 7,
      endColumn: 36,
      charOffset: WORKFLOW.indexOf('actions/'),
      charLength: 21,
    });
    assert.equal(first.fixes[0].artifactChanges[0].replacements[0].insertedContent.text, 'service/script');
    assert.deepEqual(first.locations[0].physicalLocation.artifactLocation, { uri: 'a.yml', uriBaseId: '%SRCROOT%' });
    assert.equal(runObj.originalUriBaseIds['%SRCROOT%'].uri, pathToFileURL(realpathSync(dir) + '/').href);
    assert.equal(warn.level, 'warning');
    assert.equal(warn.fixes, undefined);
  });

  it('exits 2 on an unparseable file, with its position, and still lints the others', async () => {
    const dir = repo({ 'wf/bad.yml': 'on: push\njobs: [\n  - a: b\n', 'wf/good.yml': WORKFLOW });
    const r = await run(dir, ['wf']);
    assert.equal(r.code, 2);
    assert.match(r.stdout, /^wf\/bad\.yml:3:\d+: error invalid YAML: .* \[yaml-syntax\]$/m);
    assert.match(r.stdout, /^wf\/good\.yml:7:15: error .* \[action-script\]$/m);
  });

  it('expands globs (*, **, {a,b}) and reports arguments that match nothing (exit 2)', async () => {
    const dir = repo({ 'x/a.yml': WORKFLOW, 'x/deep/b.yaml': WORKFLOW, 'x/deep/c.yml': 'on: push\n', 'y/skip.yml': WORKFLOW });
    const r = await run(dir, ['x/**/*.{yml,yaml}', '--format', 'json']);
    assert.equal(r.code, 1);
    assert.deepEqual([...new Set((JSON.parse(r.stdout) as { file: string }[]).map((f) => f.file))], ['x/a.yml', 'x/deep/b.yaml']);
    const none = await run(dir, ['x/*.json', 'missing.yml']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /x\/\*\.json: no such file/);
    assert.match(none.stderr, /missing\.yml: no such file/);
  });

  it('exits 2 on usage errors and invalid config', async () => {
    const help = await run(tmpdir(), ['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: service-hooks lint \[PATHS\|GLOBS…\] \[--fix\] \[--fix-pinned\] \[--report\] \[--format text\|json\|sarif\]/);
    const dir = repo({ 'a.yml': WORKFLOW, 'bad.json': JSON.stringify({ lint: { rules: [{ kind: 'action', from: 'not an action', to: 'x/y' }] } }) });
    assert.equal((await run(dir, ['--format', 'xml'])).code, 2);
    assert.equal((await run(dir, ['--bogus'])).code, 2);
    const badConfig = await run(dir, ['a.yml', '--config', 'bad.json']);
    assert.equal(badConfig.code, 2);
    assert.match(badConfig.stderr, /lint\.rules\[0\]\.from must be owner\/repo/);
    assert.equal((await run(dir, ['a.yml', '--config', 'nope.json'])).code, 2);
    writeFileSync(join(dir, '.service-hooks.json'), '{ not json');
    assert.match((await run(dir, ['a.yml'])).stderr, /not valid JSON/);
  });

  it('colours only on a TTY without NO_COLOR', async () => {
    const dir = repo({ 'a.yml': WORKFLOW });
    const capture = async (isTTY: boolean, env: NodeJS.ProcessEnv) => {
      const out = new PassThrough() as PassThrough & { isTTY?: boolean };
      out.isTTY = isTTY;
      const chunks: Buffer[] = [];
      out.on('data', (c: Buffer) => chunks.push(c));
      const code = await lintCommand.run(['a.yml'], {
        stdout: out,
        stderr: new PassThrough(),
        stdin: new PassThrough(),
        env,
        cwd: dir,
        stopSignal: new AbortController().signal,
      });
      return { code, text: Buffer.concat(chunks).toString() };
    };
    const tty = await capture(true, {});
    assert.equal(tty.code, 1);
    /* eslint-disable no-control-regex -- ANSI colour codes start with ESC */
    assert.match(tty.text, /\x1b\[31merror\x1b\[0m/);
    assert.doesNotMatch((await capture(true, { NO_COLOR: '1' })).text, /\x1b\[/);
    assert.doesNotMatch((await capture(false, {})).text, /\x1b\[/);
    /* eslint-enable no-control-regex */
  });
});
