// Unit tests for the linter's parts: the expression tokenizer, applyFixes, the purity of the
// library, the CLI's glob matcher and config validation.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseConfig } from '../../../src/core/lint/config';
import { globToRegExp } from '../../../relay/lint/files';
import { templateSpans, tokenize } from '../../../src/core/lint/expression';
import { parseDocument } from 'yaml';
import { applyFixes, applyFixesChecked, fixTitle, lintText, type Finding } from '../../../src/core/lint';

const texts = (value: string) => templateSpans(value).map((s) => s.tokens.map((t) => `${t.kind}:${t.text}`).join(' '));

describe('lint parts', () => {
  it('tokenizes strings with doubled quotes, numbers, identifiers with hyphens and operators', () => {
    assert.deepEqual(texts("${{ format('it''s }}', needs.build-job.result) != -1.5e3 && x[0].y || !z.* }}"), [
      "ident:format op:( string:it's }} op:, ident:needs op:. ident:build-job op:. ident:result op:) op:!= number:-1.5e3 op:&& ident:x op:[ number:0 op:] op:. ident:y op:|| op:! ident:z op:. op:*",
    ]);
    assert.deepEqual(texts('a ${{ x }} b ${{y}}'), ['ident:x', 'ident:y']);
    assert.deepEqual(texts("${{ 'unterminated }}"), [], 'an unterminated string swallows the rest');
    assert.deepEqual(
      texts('${{ a == "double" }} ${{ b }}'),
      ['ident:a op:== string:double', 'ident:b'],
      'a double-quoted string is read (and reported by the checks)',
    );
    assert.deepEqual(
      templateSpans('${{ "x" }}')[0]!.tokens.map((t) => t.double),
      [true],
    );
    assert.deepEqual(texts('${{ a == "open }} ${{ b }}'), [], 'an unterminated double-quoted string stops the scan');
    assert.deepEqual(texts('${{ a ~ b }} ${{ b }}'), [], 'invalid input stops the scan');
    assert.equal(tokenize('github.event', 0, false).end, 'github.event'.length);
  });

  it('applyFixes applies only replacements, back to front, skipping overlaps and duplicates', () => {
    const f = (offset: number, length: number, replacement?: string): Finding => ({
      rule: 'r',
      severity: 'error',
      message: '',
      offset,
      length,
      line: 1,
      column: offset + 1,
      endLine: 1,
      endColumn: offset + length + 1,
      ...(replacement !== undefined ? { replacement } : {}),
    });
    assert.equal(applyFixes('abcdef', [f(4, 2, 'XY'), f(0, 1, 'Z'), f(1, 1)]), 'ZbcdXY');
    assert.equal(applyFixes('abcdef', [f(0, 3, '1'), f(2, 2, '2')]), '1def');
    assert.equal(applyFixes('abcdef', [f(1, 1, 'Q'), f(1, 1, 'Q')]), 'aQcdef');
    assert.equal(applyFixes('abc', []), 'abc');
  });

  it('applyFixes refuses an edit that would leave a file that does not parse, and keeps the others', () => {
    const text = "a: 'x'\nb: y\n";
    const f = (offset: number, length: number, replacement: string): Finding => ({
      rule: 'r',
      severity: 'error',
      message: '',
      offset,
      length,
      line: 1,
      column: 1,
      endLine: 1,
      endColumn: 1,
      replacement,
    });
    const breaks = f(4, 1, "'q'"); // a: ''q'' -> not YAML
    const fine = f(10, 1, 'z');
    const r = applyFixesChecked(text, [breaks, fine]);
    assert.equal(r.text, "a: 'x'\nb: z\n");
    assert.deepEqual(r.refused, [breaks]);
    assert.equal(applyFixes(text, [breaks]), text);
    assert.deepEqual(applyFixesChecked(text, [fine]).refused, []);
  });

  it("the double-quote fix inside a single-quoted scalar writes YAML's escape and the file still parses", () => {
    const text = `jobs:\n  a:\n    if: '\${{ github.event_name == "push" }}'\n`;
    const fixed = applyFixes(text, lintText(text));
    assert.equal(fixed, `jobs:\n  a:\n    if: '\${{ github.event_name == ''push'' }}'\n`);
    assert.equal(parseDocument(fixed).get('jobs', true) && (parseDocument(fixed).getIn(['jobs', 'a', 'if']) as string), "${{ github.event_name == 'push' }}");
  });

  it('a fix title quotes a replacement that holds quotes so that it reads right', () => {
    assert.equal(fixTitle('service.event'), "Replace with 'service.event'");
    assert.equal(fixTitle("'pull_request'"), `Replace with "'pull_request'"`);
    assert.equal(fixTitle(`'a"b'`), "Replace with `'a\"b'`");
  });

  it('a rename inside an escape in a double-quoted scalar is a warning without a fix', () => {
    const text = 'run: "${{ git\\u0068ub.event.x }}"\n';
    const [finding] = lintText(`jobs:\n  a:\n    steps:\n      - ${text}`);
    assert.equal(finding!.severity, 'warning');
    assert.equal(finding!.replacement, undefined);
    assert.match(finding!.message, /not fixed automatically/);
  });

  it('the library imports nothing but yaml and its own modules', () => {
    const dir = resolve(__dirname, '../../../src/core/lint');
    const files = (d: string): string[] =>
      readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(d, e.name)) : [join(d, e.name)]));
    const seen = new Set<string>();
    for (const file of files(dir)) {
      for (const m of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\b[^;]*?\bfrom '([^']+)'|\bimport\('([^']+)'\)/gm)) {
        const spec = m[1] ?? m[2]!;
        seen.add(spec);
        assert.ok(spec === 'yaml' || spec.startsWith('.'), `${file} imports ${spec}`);
      }
    }
    assert.ok(seen.has('yaml') && seen.has('./types'), 'the import scan sees the imports');
  });

  it("the editor's lint modules import no CLI code from relay/", () => {
    const ext = resolve(__dirname, '../../../src/extension');
    for (const file of [
      'lint/diagnostics.ts',
      'lint/lintRules.ts',
      'lint/portReportView.ts',
      'commands/fixAllWorkflowNames.ts',
      'commands/portWorkflows.ts',
      'lint/workflowFiles.ts',
    ]) {
      const text = readFileSync(join(ext, file), 'utf8');
      const specs = [...text.matchAll(/\bfrom '([^']+)'|\bimport\('([^']+)'\)/g)].map((m) => m[1] ?? m[2]!);
      assert.ok(specs.length > 0, `${file} has imports`);
      assert.deepEqual(
        specs.filter((s) => /(^|\/)relay\//.test(s)),
        [],
        file,
      );
    }
  });

  it('matches globs: *, **, ?, [..], {a,b}', () => {
    const re = (g: string) => globToRegExp(g);
    assert.ok(re('.github/workflows/*.yml').test('.github/workflows/ci.yml'));
    assert.ok(!re('.github/workflows/*.yml').test('.github/workflows/x/ci.yml'));
    assert.ok(re('**/*.{yml,yaml}').test('a/b/c.yaml'));
    assert.ok(re('**/*.{yml,yaml}').test('c.yml'));
    assert.ok(re('a/**').test('a/b/c'));
    assert.ok(re('ci-?.y[a]ml').test('ci-1.yaml'));
    assert.ok(!re('ci-?.y[!a]ml').test('ci-1.yaml'));
    assert.ok(!re('*.yml').test('a.yml.bak'));
  });

  it('validates lint.rules and lint.workflowDirs', () => {
    assert.deepEqual(parseConfig({}, 'c'), { rules: [], workflowDirs: [] });
    assert.deepEqual(parseConfig({ lint: { rules: [{ kind: 'env', from: 'A', to: 'B', id: 'ab' }], workflowDirs: ['.service/workflows'] } }, 'c'), {
      rules: [{ kind: 'env', from: 'A', to: 'B', id: 'ab' }],
      workflowDirs: ['.service/workflows'],
    });
    assert.throws(() => parseConfig({ lint: { rules: [{ kind: 'regex', from: 'a', to: 'b' }] } }, 'c'), /lint\.rules\[0\]\.kind must be one of/);
    assert.throws(
      () => parseConfig({ lint: { rules: [{ kind: 'context', from: 'github.', to: 'x' }] } }, 'c'),
      /lint\.rules\[0\]\.from must be a property path/,
    );
    assert.throws(() => parseConfig({ lint: { rules: [{ kind: 'secret', from: 'A-B', to: 'x' }] } }, 'c'), /from must be a name/);
    assert.throws(() => parseConfig({ lint: { workflowDirs: 'x' } }, 'c'), /workflowDirs must be an array/);
    assert.throws(() => parseConfig([], 'c'), /top level must be an object/);
  });
});
