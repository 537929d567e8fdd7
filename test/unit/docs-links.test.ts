// Every relative link and anchor in README.md, CHANGELOG.md and docs/*.md resolves: the README is
// short and points into docs/, so a page renamed or a heading reworded must not leave a dead link.
// Anchors are GitHub's heading slugs (lower case, punctuation dropped, spaces to hyphens, -1, -2 for
// repeats). Links inside code (fenced blocks, `spans`) are not links and are skipped.
import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { makeTempDir } from './tempDirs';

const ROOT = resolve(__dirname, '../..');

/** The text outside fenced code blocks and code spans, line by line (line numbers kept). */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`+[^`]*`+/g, '');
  });
}

/** GitHub's anchor for a heading's text (github-slugger's rule). */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link in a heading counts by its text
    .replace(/<[^>]+>/g, '')
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** The anchors a Markdown file offers: one per heading, repeats numbered as GitHub does. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The broken relative links of one Markdown file, as `file:line: target (why)`. */
export function brokenLinks(file: string, root: string): string[] {
  const text = readFileSync(file, 'utf8');
  const broken: string[] = [];
  const lines = prose(text);
  const link = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)|^\s*\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+"[^"]*")?\s*$/g;
  lines.forEach((line, i) => {
    for (const m of line.matchAll(link)) {
      const target = (m[1] ?? m[2])!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, command:
      const why = problem(file, target);
      if (why) broken.push(`${relative(root, file)}:${i + 1}: ${target} (${why})`);
    }
  });
  return broken;
}

function problem(file: string, target: string): string | undefined {
  const [pathPart, anchor] = splitAnchor(target);
  const path = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
  if (!existsSync(path)) return 'no such file';
  if (anchor === undefined) return undefined;
  if (statSync(path).isDirectory() || !path.endsWith('.md')) return 'an anchor into a file that is not Markdown';
  return anchors(readFileSync(path, 'utf8')).has(decodeURIComponent(anchor).toLowerCase()) ? undefined : `no heading #${anchor}`;
}

function splitAnchor(target: string): [string, string | undefined] {
  const hash = target.indexOf('#');
  return hash < 0 ? [target, undefined] : [target.slice(0, hash), target.slice(hash + 1)];
}

/** README.md, CHANGELOG.md and every docs/*.md under root. */
export function markdownFiles(root: string): string[] {
  const docs = join(root, 'docs');
  const inDocs = existsSync(docs)
    ? readdirSync(docs)
        .filter((f) => f.endsWith('.md'))
        .map((f) => join(docs, f))
    : [];
  return [join(root, 'README.md'), join(root, 'CHANGELOG.md'), ...inDocs].filter((f) => existsSync(f));
}

describe('docs: relative links and anchors resolve', () => {
  it('README.md, CHANGELOG.md and docs/*.md have no broken relative link or anchor', () => {
    const files = markdownFiles(ROOT);
    assert.ok(files.length >= 10, `expected README, CHANGELOG and the docs pages, found ${files.length}`);
    assert.deepEqual(
      files.flatMap((f) => brokenLinks(f, ROOT)),
      [],
    );
  });

  it('the README points into docs/ and stays under 300 lines', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    assert.ok(readme.split('\n').length < 300, `README.md has ${readme.split('\n').length} lines`);
    for (const f of markdownFiles(ROOT).filter((f) => dirname(f) === join(ROOT, 'docs'))) {
      assert.ok(readme.includes(`](docs/${f.split(/[\\/]/).pop()})`), `README.md does not link ${relative(ROOT, f)}`);
    }
  });

  it('finds a missing file, a missing heading and a stale anchor, and accepts good links', () => {
    const root = makeTempDir('sh-docs-links-');
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'a.md'), '# Page A\n\n## The `relay`: one node, then NATS!\n\n## Twice\n\n## Twice\n');
    writeFileSync(join(root, 'docs', 'pic.png'), '');
    writeFileSync(
      join(root, 'README.md'),
      [
        '# Top',
        '[ok](docs/a.md) [ok](docs/a.md#the-relay-one-node-then-nats) [ok](docs/a.md#twice-1) ![ok](docs/pic.png) [ok](#top)',
        '[ok](https://example.invalid/x.md) `[code](nowhere.md)`',
        '```',
        '[fenced](nowhere.md)',
        '```',
        '[bad](docs/b.md) [bad](docs/a.md#no-such) [bad](#gone) [bad](docs/pic.png#x)',
        '[ref]: docs/missing.md',
      ].join('\n'),
    );
    assert.deepEqual(brokenLinks(join(root, 'README.md'), root), [
      'README.md:7: docs/b.md (no such file)',
      'README.md:7: docs/a.md#no-such (no heading #no-such)',
      'README.md:7: #gone (no heading #gone)',
      'README.md:7: docs/pic.png#x (an anchor into a file that is not Markdown)',
      'README.md:8: docs/missing.md (no such file)',
    ]);
  });

  it('slugs headings as GitHub does', () => {
    assert.equal(slug('`service-hooks forward`, `deliveries`, `replay`, `retry-pending`'), 'service-hooks-forward-deliveries-replay-retry-pending');
    assert.equal(slug('Starting the relay from a program: `--ready json`'), 'starting-the-relay-from-a-program---ready-json');
    assert.equal(slug('Fail-over on JetStream: what the service and your app see'), 'fail-over-on-jetstream-what-the-service-and-your-app-see');
    assert.equal(slug('[0.1.0] - 2026-11-23'), '010---2026-11-23');
  });
});
