// untrusted-input against actionlint's own test data for its script-injection check
// (test/fixtures/actionlint-untrusted, MIT): every field actionlint flags is flagged on the same line,
// and nothing else, on the files as they are and after the port (`--fix`, github.event → service.event).
// actionlint places a finding inside a block scalar (`script: |`) on the key's line; there the
// finding must lie inside that block scalar.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { applyFixes, lintText } from '../../../src/core/lint';

const DIR = resolve(__dirname, '../../fixtures/actionlint-untrusted');

interface Flag {
  line: number;
  paths: string;
}

function expected(out: string): Flag[] {
  return out
    .split('\n')
    .filter((l) => l.includes('potentially untrusted'))
    .map((l) => {
      const line = Number(/^test\.yaml:(\d+):/.exec(l)![1]);
      const paths = [...l.matchAll(/"((?:github)\.[^"]+)"/g)]
        .map((m) => m[1]!)
        .sort()
        .join(' ');
      return { line, paths };
    });
}

function ours(text: string): Flag[] {
  return lintText(text)
    .filter((f) => f.rule === 'untrusted-input')
    .map((f) => ({
      line: f.line,
      paths: [...f.message.matchAll(/`((?:github|service)\.[^`]+)`/g)]
        .map((m) => m[1]!)
        .sort()
        .join(' '),
    }));
}

/** Our line matches actionlint's: the same, or inside the block scalar whose key is on actionlint's line. */
function sameLine(text: string, theirs: number, mine: number): boolean {
  if (theirs === mine) return true;
  const lines = text.split('\n');
  const key = lines[theirs - 1] ?? '';
  if (!/:\s*[|>][-+0-9]*\s*$/.test(key) || mine <= theirs) return false;
  const indent = key.length - key.trimStart().length;
  return lines.slice(theirs, mine).every((l) => l.trim() === '' || l.length - l.trimStart().length > indent);
}

function check(text: string, want: Flag[], label: string): void {
  const got = ours(text);
  assert.equal(got.length, want.length, `${label}: ${JSON.stringify(got)} vs ${JSON.stringify(want)}`);
  for (const w of want) {
    const hit = got.find((g) => g.paths === w.paths && sameLine(text, w.line, g.line));
    assert.ok(hit, `${label}: actionlint flags ${w.paths} on line ${w.line}; we flag ${JSON.stringify(got)}`);
  }
}

describe('untrusted-input against actionlint test data', () => {
  const cases = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));
  let total = 0;
  for (const file of cases) {
    it(file, () => {
      const text = readFileSync(join(DIR, file), 'utf8');
      const outFile = join(DIR, file.replace(/\.yaml$/, '.out'));
      const want = file.startsWith('ok_') ? [] : expected(readFileSync(outFile, 'utf8'));
      total += want.length;
      check(text, want, `${file} as it is`);
      const ported = applyFixes(text, lintText(text));
      assert.ok(!/github\.event\b/.test(ported.replace(/^\s*#.*$/gm, '')), `${file}: the port renamed github.event`);
      const portedWant = want.map((w) => ({ ...w, paths: w.paths.replace(/\bgithub\.event\./g, 'service.event.') }));
      check(ported, portedWant, `${file} ported`);
    });
  }
  it('covers all 9 findings of actionlint test data', () => assert.equal(total, 9));
});

interface Expressions {
  untrusted: string[];
  flagged: [string, string[]][];
  clean: string[];
}

/** The fields flagged in `expr` used in a run: script, in order, for the original and the ported spelling. */
function flagsIn(expr: string): string[] {
  const text = `on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: echo "\${{ ${expr} }}"\n`;
  return lintText(text)
    .filter((f) => f.rule === 'untrusted-input')
    .map((f) => [...f.message.matchAll(/`((?:github|service)\.[^`]+)`/g)].map((m) => m[1]!).join(' '));
}

describe("untrusted-input against actionlint's expression cases", () => {
  const data = JSON.parse(readFileSync(join(DIR, 'expressions.json'), 'utf8')) as Expressions;
  const service = (s: string) => s.replace(/\bgithub(\.event\b|\['event'\])/g, 'service$1');

  it('flags each untrusted field, as a property path, with string indexes, and through [0] for arrays (github and service)', () => {
    for (const input of data.untrusted) {
      const props = input.split('.');
      const forms = [
        input,
        props[0] +
          props
            .slice(1)
            .map((p) => (p === '*' ? '.*' : `['${p}']`))
            .join(''),
      ];
      if (input.includes('.*'))
        forms.push(
          input.replace(/\.\*/g, '[0]'),
          props[0] +
            props
              .slice(1)
              .map((p) => (p === '*' ? '[0]' : `['${p}']`))
              .join(''),
        );
      for (const form of forms) {
        assert.deepEqual(flagsIn(form), [input], form);
        if (input.startsWith('github.event.')) assert.deepEqual(flagsIn(service(form)), [service(input)], service(form));
      }
    }
  });

  it('flags the fields actionlint flags in compound expressions (findings sorted by position here)', () => {
    for (const [expr, want] of data.flagged) {
      const got = flagsIn(expr);
      assert.equal(got.length, want.length, `${expr}: ${JSON.stringify(got)}`);
      const left = [...got];
      for (const w of want) {
        const k = left.findIndex((g) => g === w || (w.endsWith('.') && g.startsWith(w)));
        assert.ok(k >= 0, `${expr}: ${w} not flagged in ${JSON.stringify(got)}`);
        left.splice(k, 1);
      }
      const ported = flagsIn(service(expr));
      assert.equal(ported.length, want.length, `${service(expr)}: ${JSON.stringify(ported)}`);
    }
  });

  it('flags nothing where actionlint flags nothing', () => {
    for (const expr of data.clean) {
      assert.deepEqual(flagsIn(expr), [], expr);
      assert.deepEqual(flagsIn(service(expr)), [], service(expr));
    }
  });
});
