// The signature doctor (src/core/doctor.ts): what it says of a re-serialized body, a newline, a
// charset or BOM change, another known secret, a malformed header or digest, and the exit code of
// `verify --explain` (relay/commands/verify-explain.ts).
import { strict as assert } from 'node:assert';
import { explainSignature } from '../../../src/core/doctor';
import { sign } from '../../../src/core/signing';
import { runExplain } from '../../../relay/commands/verify-explain';

const SECRET = 'doctor-secret';
const pretty = '{\n  "action": "opened",\n  "name": "café"\n}';
const compact = JSON.stringify(JSON.parse(pretty));

function explain(body: Buffer | string, header: string | undefined, secrets: string[] = [SECRET]) {
  return explainSignature({ body, header, secrets });
}

describe('signature doctor', () => {
  it('says OK when the signature matches as-is', () => {
    const r = explain(pretty, sign(SECRET, pretty));
    assert.equal(r.ok, true);
    assert.equal(r.secretIndex, 0);
  });

  it('explains a re-serialized JSON body (compact vs 2-space)', () => {
    const r = explain(compact, sign(SECRET, pretty));
    assert.equal(r.ok, false);
    assert.match(r.findings.join('\n'), /re-serialized.*equal as JSON.*2 spaces/);
    const back = explain(pretty, sign(SECRET, compact));
    assert.match(back.findings.join('\n'), /re-serialized.*compact/);
  });

  it('explains a trailing newline added or dropped', () => {
    assert.match(explain(pretty + '\n', sign(SECRET, pretty)).findings.join(), /trailing newline was added/);
    assert.match(explain(pretty, sign(SECRET, pretty + '\n')).findings.join(), /trailing newline .* dropped/);
  });

  it('explains a charset change (latin1 vs UTF-8) and a BOM', () => {
    const utf8 = Buffer.from(pretty, 'utf8');
    const latin1 = Buffer.from(pretty, 'latin1');
    assert.match(explain(latin1, sign(SECRET, utf8)).findings.join(), /charset changed: the body was signed as UTF-8.*latin1/);
    assert.match(explain(utf8, sign(SECRET, latin1)).findings.join(), /charset changed: the body was signed as ISO-8859-1/);
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8]);
    assert.match(explain(bom, sign(SECRET, utf8)).findings.join(), /byte order mark/);
  });

  it('says when another known secret matches', () => {
    const r = explain(pretty, sign('old-secret', pretty), [SECRET, 'old-secret']);
    assert.equal(r.ok, false);
    assert.equal(r.secretIndex, 1);
    assert.match(r.findings.join(), /another known secret matches.*#2/);
  });

  it('spots a missing sha256= prefix and an upper-case digest', () => {
    const header = sign(SECRET, pretty);
    const noPrefix = explain(pretty, header.slice('sha256='.length));
    assert.equal(noPrefix.ok, false);
    assert.match(noPrefix.findings.join(), /sha256= prefix is missing/);
    assert.match(noPrefix.findings.join(), /digest itself matches/);
    const upper = explain(pretty, 'sha256=' + header.slice(7).toUpperCase());
    assert.equal(upper.ok, false);
    assert.match(upper.findings.join(), /upper-case/);
  });

  it('says when nothing explains it, when the header is missing, and when it is not a digest', () => {
    assert.match(explain(pretty, sign('unknown', pretty)).findings.join(), /secret is most likely different/);
    assert.match(explain(pretty, undefined).findings.join(), /missing/);
    assert.match(explain(pretty, 'sha256=abc').findings.join(), /not 64 hexadecimal/);
    assert.match(explain(pretty, 'sha1=' + 'a'.repeat(40)).findings.join(), /sha1=/);
  });

  it('runExplain prints the findings and returns the exit code', () => {
    let out = '';
    const io = { stdout: { write: (s: string) => ((out += s), true) } as unknown as NodeJS.WritableStream };
    assert.equal(runExplain({ body: compact, header: sign(SECRET, pretty), secrets: [SECRET] }, io).code, 1);
    assert.match(out, /does not match\n {2}- the body was re-serialized/);
    assert.equal(runExplain({ body: pretty, header: sign(SECRET, pretty), secrets: [SECRET] }, io).code, 0);
  });
});
