// Property tests over the corpus with random edits (fast-check): the linter never throws, ranges
// are inside the text and agree with line/column, fixes are idempotent, and a fixed file parses to
// the same data as the original apart from the renamed names.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { parseDocument } from 'yaml';
import { applyFixes, lintText, type Finding } from '../../../src/core/lint';
import { corpusFiles } from './golden';

const texts = corpusFiles().map((f) => readFileSync(f, 'utf8'));

const FRAGMENTS = [
  '${{ ',
  ' }}',
  '${{ github.event.x }}',
  'github.event',
  'github.repository',
  'github.event_name',
  "'",
  "''",
  '"',
  '\\',
  '\\u0065',
  '\n',
  '\r\n',
  '\n  ',
  '    ',
  '\t',
  '#',
  ': ',
  '- ',
  '|',
  '>-',
  '|2',
  '[',
  ']',
  '{',
  '}',
  ',',
  '&a ',
  '*a',
  '$GITHUB_TOKEN',
  '${GITHUB_TOKEN}',
  'GITHUB_TOKEN: x\n',
  'secrets.GITHUB_TOKEN',
  "github['event']",
  'toJSON(github)',
  'uses: actions/github-script@v7\n',
  'if: github.event.action\n',
  'github/codeql-action/init@',
  'é',
  '😀',
  '\uFEFF',
  '',
];

const edit = fc.record({ at: fc.nat(), del: fc.nat({ max: 8 }), ins: fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 6 })) });
const mutated = fc.tuple(fc.nat({ max: texts.length - 1 }), fc.array(edit, { minLength: 1, maxLength: 6 })).map(([i, edits]) => {
  let t = texts[i]!;
  for (const e of edits) {
    const at = e.at % (t.length + 1);
    t = t.slice(0, at) + e.ins + t.slice(at + e.del);
  }
  return t;
});

/** 1-based line/column of an offset, computed independently of the linter (BOM not a column). */
function position(text: string, offset: number): [number, number] {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const bom = line === 1 && text.charCodeAt(0) === 0xfeff && offset > 0 ? 1 : 0;
  return [line, offset - lineStart - bom + 1];
}

function checkInvariants(text: string, findings: Finding[]): void {
  for (const f of findings) {
    assert.ok(f.offset >= 0 && f.length >= 0 && f.offset + f.length <= text.length, 'range inside the text');
    assert.deepEqual([f.line, f.column], position(text, f.offset));
    assert.deepEqual([f.endLine, f.endColumn], position(text, f.offset + f.length));
    assert.equal(f.replacement !== undefined, f.severity === 'error' && f.rule !== 'yaml-syntax');
  }
}

/** Every rename of the built-in table applied to a string, wherever it occurs (literals too). */
function normalize(s: string): string {
  return s
    .replace(/(?<![\w.-])github(?=\s*\.\s*(?:event|repository)(?![\w-]))/gi, 'service')
    .replace(/(?<![\w-])GITHUB_TOKEN(?!\w)/gi, 'SERVICE_TOKEN')
    .replace(/actions\/github-script/gi, 'service/script')
    .replace(/github\/codeql-action/gi, 'service/codeql-action');
}

function normalizeData(v: unknown): unknown {
  if (typeof v === 'string') return normalize(v);
  if (Array.isArray(v)) return v.map(normalizeData);
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [normalizeData(k), normalizeData(x)]));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [normalize(k), normalizeData(x)]));
  return v;
}

function sameDataApartFromRenames(original: string, fixed: string): void {
  const a = parseDocument(original);
  if (a.errors.length > 0) return;
  const b = parseDocument(fixed);
  assert.deepEqual(b.errors, [], 'the fixed file parses');
  let dataA: unknown;
  try {
    dataA = a.toJS({ mapAsMap: true });
  } catch (err) {
    // The original parses but has no data (e.g. an alias to an anchor that does not exist, which a
    // random edit can make): the fixed file must fail the same way.
    assert.throws(() => b.toJS({ mapAsMap: true }), { message: (err as Error).message });
    return;
  }
  assert.deepEqual(normalizeData(b.toJS({ mapAsMap: true })), normalizeData(dataA));
}

describe('lint properties', function () {
  this.timeout(120_000);

  it('every corpus file: fixed data equals the original apart from the renames', () => {
    for (const text of texts) {
      const fixed = applyFixes(text, lintText(text));
      sameDataApartFromRenames(text, fixed);
    }
  });

  it('random edits never crash the linter and keep ranges consistent', () => {
    fc.assert(
      fc.property(mutated, (text) => {
        checkInvariants(text, lintText(text));
      }),
      { numRuns: 400 },
    );
  });

  it('fixes are idempotent and keep the data apart from the renames', () => {
    fc.assert(
      fc.property(mutated, (text) => {
        const findings = lintText(text);
        const fixed = applyFixes(text, findings);
        const again = lintText(fixed);
        assert.deepEqual(
          again.filter((f) => f.replacement !== undefined),
          [],
        );
        assert.equal(applyFixes(fixed, again), fixed);
        sameDataApartFromRenames(text, fixed);
      }),
      { numRuns: 400 },
    );
  });
});
