// The port report as HTML for the editor's view (src/core/lint/reportHtml.ts): every Markdown link of
// the report becomes an anchor carrying its target (the view opens the file at that line), the
// tables keep their cells, and file names and messages are escaped, never markup.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { lintText, portReport, ruleTable } from '../../../src/core/lint';
import { inlineHtml, reportHtml } from '../../../src/core/lint/reportHtml';

const GOLDEN = resolve(__dirname, '../../fixtures/lint-report/port-report.md');

describe('lint port report as HTML', () => {
  it('turns every link of the golden report into an anchor with its target, and leaves no Markdown link syntax', () => {
    const md = readFileSync(GOLDEN, 'utf8');
    const html = reportHtml(md);
    const links = [...md.matchAll(/\]\((wf\/[^)\s]+#L\d+)\)/g)].map((m) => m[1]!);
    const anchors = [...html.matchAll(/<a href="#" data-target="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(links.length > 10);
    assert.deepEqual(anchors, links);
    assert.ok(!/\]\(/.test(html.replace(/<code>[\s\S]*?<\/code>/g, '')), 'no raw [text](target) left');
    assert.equal((html.match(/<table>/g) ?? []).length, (md.match(/^\| --- /gm) ?? []).length);
    assert.match(html, /<h1>Workflow port report<\/h1>/);
    assert.match(html, /<td style="text-align:right">\d+<\/td>/);
  });

  it('escapes HTML and keeps escaped Markdown as text', () => {
    const md = portReport(
      [
        { file: 'amp&semi;.yml', findings: lintText('jobs:\n  a:\n    steps:\n      - run: echo ${{ github.event.ref }}\n') },
        { file: '<script>x</script>`t`.yml', findings: [] },
      ],
      { rules: ruleTable(), link: (f, l) => `${encodeURIComponent(f)}#L${l}`, fixWith: 'Fix All', suggestWith: 'the quick fix' },
    );
    const html = reportHtml(md);
    assert.ok(!html.includes('<script>'), html);
    assert.ok(html.includes('>amp&amp;semi;.yml</a>'), html);
    assert.ok(html.includes('>&lt;script&gt;x&lt;/script&gt;`t`.yml</a>'), html);
    assert.equal(
      inlineHtml('a \\| b `c|d` [x (1)](u(1)#L2) **b**'),
      'a | b <code>c|d</code> <a href="#" data-target="u(1)#L2" title="u(1)#L2">x (1)</a> <strong>b</strong>',
    );
  });
});
