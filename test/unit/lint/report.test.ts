// The port report (src/core/lint/report.ts) as a golden Markdown file over fixture workflows: renames
// per rule and file, every warning grouped by kind with its line and reason, the portable files.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { lintText, portReport, ruleTable, summarize, type ReportFile } from '../../../src/core/lint';
import { UPDATE } from './golden';

const LINT = resolve(__dirname, '../../fixtures/lint');
const GOLDEN = resolve(__dirname, '../../fixtures/lint-report/port-report.md');
const CASES = [
  'ok/clean.yml',
  'err/composite-action.yml',
  'err/sha-pinned-comment.yml',
  'err/token-env-gh-named.yml',
  'err/context-roots.yml',
  'err/if-double-quoted.yml',
];

function files(): ReportFile[] {
  return CASES.map((c) => ({ file: `wf/${basename(c)}`, findings: lintText(readFileSync(join(LINT, c), 'utf8')) }));
}

const options = { rules: ruleTable(), link: (file: string, line: number) => `${file}#L${line}`, fixWith: 'Fix All', suggestWith: 'the quick fix' };

describe('lint port report', () => {
  it('matches the reviewed golden report', () => {
    const md = portReport(files(), options);
    if (UPDATE) writeFileSync(GOLDEN, md);
    assert.ok(existsSync(GOLDEN), 'run with UPDATE_GOLDEN=1, then review it');
    assert.equal(md, readFileSync(GOLDEN, 'utf8'));
  });

  it('links every warning to its line and counts what the sections list', () => {
    const all = files();
    const md = portReport(all, options);
    const s = summarize(all);
    const warnings = all.flatMap((f) => f.findings.filter((x) => x.replacement === undefined).map((x) => `(${f.file}#L${x.line})`));
    assert.equal(warnings.length, s.decisions);
    const decisions = md.slice(md.indexOf('## Needs a decision'), md.indexOf('## Already portable'));
    for (const w of warnings) assert.ok(decisions.includes(w), w);
    assert.equal(s.renames, all.flatMap((f) => f.findings).filter((x) => x.replacement !== undefined).length);
    assert.match(md, /^- \[wf\/clean\.yml\]\(wf\/clean\.yml#L1\)$/m);
    assert.equal(s.portable, 1);
  });

  it('escapes Markdown in link texts: &semi; and backticks show as written', () => {
    const [finding] = lintText('jobs:\n  a:\n    steps:\n      - run: echo ${{ github.event.ref }}\n');
    const md = portReport(
      [
        { file: 'amp&semi;.yml', findings: [finding!] },
        { file: 'tick`x`.yml', findings: [] },
        { file: 'a_b*c*|d.yml', findings: [] },
      ],
      options,
    );
    assert.match(md, /^\| \[amp\\&semi;\.yml\]\(amp&semi;\.yml#L4\) \| 1 \|/m);
    assert.ok(md.includes('- [tick\\`x\\`.yml](tick`x`.yml#L1)'), md);
    assert.ok(md.includes('- [a\\_b\\*c\\*\\|d.yml](a_b*c*|d.yml#L1)'), md);
  });

  it('a file that could not be read is listed as such, never as portable', () => {
    const all: ReportFile[] = [
      { file: 'gone.yml', findings: [], unreadable: 'EACCES' },
      { file: 'ok.yml', findings: [] },
    ];
    const md = portReport(all, options);
    assert.equal(summarize(all).portable, 1);
    assert.equal(summarize(all).unreadable, 1);
    assert.match(md, /1 file\(s\) are already portable; 1 file\(s\) could not be read\./);
    const portable = md.slice(md.indexOf('## Already portable'), md.indexOf('## Could not be read'));
    assert.ok(!portable.includes('gone.yml'), portable);
    assert.match(md, /^## Could not be read\n\n- gone\.yml: EACCES$/m);
  });

  it('says so when there is nothing to rename, decide or port', () => {
    const md = portReport([{ file: 'a.yml', findings: [] }], options);
    assert.match(md, /Nothing to rename\./);
    assert.match(md, /Nothing: every finding has an exact fix\./);
    assert.match(md, /1 file\(s\) checked: 0 rename\(s\) in 0 file\(s\)/);
  });
});
