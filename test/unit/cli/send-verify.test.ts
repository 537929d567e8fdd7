// `service-hooks send` and `service-hooks verify` as real child processes (the bundled CLI),
// against a real local receiver; signatures cross-checked with @octokit/webhooks-methods.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { jsonErrorOffset } from '../../../relay/commands/send';
import { EVENT_TYPES } from '../../../src/core/events';
import { sign } from '../../../src/core/signing';
import { startPeer } from '../core/client/peer';
import { cli, startTarget, tempDir, type TargetApp } from '../relay/support/helpers';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function run(args: string[], input?: string | Buffer): Promise<Run> {
  const child = spawn(process.execPath, [await cli(), ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.end(input ?? '');
  const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
  return { code, stdout, stderr };
}

async function octokitVerify(secret: string, body: Buffer, header: string): Promise<boolean> {
  // ESM-only package: loaded with a dynamic import from this CommonJS test.
  const { verify } = await import('@octokit/webhooks-methods');
  return verify(secret, body.toString('utf8'), header);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** Every event `send` knows: the service's event types (src/core/events) and `ping`. */
const EVENTS = [...EVENT_TYPES, 'ping'];

describe('send: JSON error locator', () => {
  const parses = (t: string) => {
    try {
      JSON.parse(t);
      return true;
    } catch {
      return false;
    }
  };

  it('agrees with JSON.parse on valid documents and on random edits of them', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 3 }), fc.nat(), fc.string({ maxLength: 2 }), (v, space, at, insert) => {
        const text = JSON.stringify(v, null, space);
        assert.equal(jsonErrorOffset(text), -1);
        const pos = at % (text.length + 1);
        const edited = text.slice(0, pos) + insert + text.slice(pos + (at % 2));
        assert.equal(jsonErrorOffset(edited) < 0, parses(edited), JSON.stringify(edited));
      }),
      { numRuns: 2000 },
    );
  });

  it('points at the first offending character', () => {
    assert.equal(jsonErrorOffset('{"a":}'), 5);
    assert.equal(jsonErrorOffset('[1,]'), 3);
    assert.equal(jsonErrorOffset('{"a":1} x'), 8);
    assert.equal(jsonErrorOffset('"abc'), 4);
    assert.equal(jsonErrorOffset(''), 0);
  });
});

describe('CLI send and verify (child processes)', function () {
  this.timeout(60_000);
  let target: TargetApp;
  let dir: string;

  before(async () => {
    dir = tempDir('sh-send-verify-');
    await cli();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  beforeEach(async () => {
    target = await startTarget();
  });
  afterEach(() => target.close());

  describe('send', () => {
    it('sends a signed sample that an independent verifier accepts, with the documented headers', async () => {
      const r = await run(['send', 'push', '--to', target.url, '--secret', 's3cret', '--repo', 'octo/app']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^200 OK in \d+ ms$/m);
      assert.match(r.stdout, /^ok$/m, 'prints the body excerpt');
      assert.equal(target.received.length, 1);
      const got = target.received[0]!;
      assert.equal(got.headers['content-type'], 'application/json');
      assert.equal(got.headers['x-service-event'], 'push');
      assert.match(String(got.headers['x-service-delivery']), new RegExp(`^test-${UUID.source.replace(/^\^/, '')}`), 'a test send: test-<uuid>');
      assert.equal(got.headers['user-agent'], 'service-hooks-cli');
      assert.ok(await octokitVerify('s3cret', got.body, String(got.headers['x-service-signature'])));
      assert.equal(await octokitVerify('other', got.body, String(got.headers['x-service-signature'])), false);
      const payload = JSON.parse(got.body.toString()) as { event: string; repository: { full_name: string } };
      assert.equal(payload.event, 'push');
      assert.equal(payload.repository.full_name, 'octo/app');
      assert.ok(r.stdout.includes(String(got.headers['x-service-delivery'])), 'prints the delivery id');
    });

    it('sends every event type and ping; without --secret there is no signature header', async () => {
      for (const event of EVENTS) {
        const r = await run(['send', event, '--to', target.url]);
        assert.equal(r.code, 0, `${event}: ${r.stderr}`);
      }
      assert.deepEqual(
        target.received.map((g) => g.headers['x-service-event']),
        EVENTS,
      );
      assert.ok(target.received.every((g) => g.headers['x-service-signature'] === undefined));
      assert.ok(target.received.every((g) => typeof JSON.parse(g.body.toString()) === 'object'));
    });

    it('sends a --payload file byte-exact (pretty-printed, \\u escapes, CRLF, no re-serialisation)', async () => {
      const raw =
        '{\r\n    "event": "issue",\r\n    "issue": { "number": 7, "title": "caf\\u00e9 \\ud83d\\ude00", "state": "open" },\r\n    "n": 1.50\r\n}\r\n';
      const file = join(dir, 'issue.json');
      writeFileSync(file, raw);
      const r = await run([
        'send',
        'issue',
        '--to',
        target.url,
        '--secret',
        'k',
        '--payload',
        file,
        '--header',
        'X-Trace: abc:1',
        '--header',
        'x-service-event:custom',
      ]);
      assert.equal(r.code, 0, r.stderr);
      const got = target.received[0]!;
      assert.ok(got.body.equals(Buffer.from(raw)), `bytes changed: ${JSON.stringify(got.body.toString())}`);
      assert.ok(await octokitVerify('k', got.body, String(got.headers['x-service-signature'])));
      assert.equal(got.headers['x-trace'], 'abc:1');
      assert.equal(got.headers['x-service-event'], 'custom', '--header overrides a default');
    });

    it('reads --payload - from stdin byte-exact', async () => {
      const raw = Buffer.from('[ "\\u0041",\n  {"é": true} ]\n');
      const r = await run(['send', 'comment', '--to', target.url, '--secret', 'k', '--payload', '-'], raw);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(target.received[0]!.body.equals(raw));
      assert.equal(String(target.received[0]!.headers['x-service-signature']), sign('k', raw));
    });

    it('exits 1 on a non-2xx answer and when nobody listens', async () => {
      target.status = 500;
      const failed = await run(['send', 'push', '--to', target.url]);
      assert.equal(failed.code, 1);
      assert.match(failed.stdout, /^500 Internal Server Error in \d+ ms$/m);
      const down = await run(['send', 'push', '--to', 'http://user:pa55word@127.0.0.1:1/hook']);
      assert.equal(down.code, 1);
      assert.match(down.stderr, /could not deliver to http:\/\/\[redacted\]@127\.0\.0\.1:1\/hook: .*ECONNREFUSED/);
      assert.ok(!`${down.stdout}${down.stderr}`.includes('pa55word'), 'credentials in --to are not printed');
      const hang = await startPeer();
      hang.handle = () => undefined;
      try {
        const slow = await run(['send', 'push', '--to', `${hang.url}/hook`, '--timeout', '200']);
        assert.equal(slow.code, 1);
        assert.match(slow.stderr, /could not deliver to .*: no answer within 200 ms/);
        assert.equal(hang.requests.length, 1);
      } finally {
        await hang.close();
      }
    });

    it('exits 2 on usage errors, naming the problem', async () => {
      const unknown = await run(['send', 'deploy', '--to', target.url]);
      assert.equal(unknown.code, 2);
      assert.ok(unknown.stderr.includes(`unknown event 'deploy'; expected one of: ${EVENTS.join(', ')}`), unknown.stderr);
      assert.match((await run(['send', 'push'])).stderr, /--to URL is required/);
      assert.equal((await run(['send', 'push', '--to', 'ftp://x'])).code, 2);
      assert.equal((await run(['send', '--to', target.url])).code, 2);
      assert.equal((await run(['send', 'push', '--to', target.url, '--header', 'no colon'])).code, 2);
      assert.equal((await run(['send', 'push', '--to', target.url, '--repo', 'noslash'])).code, 2);
      assert.equal((await run(['send', 'push', '--to', target.url, '--bogus'])).code, 2);
      const bad = join(dir, 'bad.json');
      writeFileSync(bad, '{\n  "a": 1,\n  "b": }\n');
      const badJson = await run(['send', 'push', '--to', target.url, '--payload', bad]);
      assert.equal(badJson.code, 2);
      assert.match(badJson.stderr, /is not valid JSON: unexpected "}" at line 3, column 8 \(offset 19\)/);
      const missing = await run(['send', 'push', '--to', target.url, '--payload', join(dir, 'nope.json')]);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /cannot read \(ENOENT\)/);
      assert.equal(target.received.length, 0, 'nothing was sent on a usage error');
    });

    it('has a full --help', async () => {
      const r = await run(['send', '--help']);
      assert.equal(r.code, 0);
      assert.match(r.stdout, /^Usage: service-hooks send <event> --to URL/);
      for (const flag of ['--to', '--secret', '--payload', '--header', '--repo', '--timeout']) assert.ok(r.stdout.includes(flag), flag);
    });
  });

  describe('verify', () => {
    const body = Buffer.from('{"event":"push","n":1}\n');
    let file: string;
    before(() => {
      file = join(dir, 'body.json');
      writeFileSync(file, body);
    });

    it('exits 0 for a valid signature and names the secret that matched among several', async () => {
      const one = await run(['verify', '--secret', 'new', '--signature', sign('new', body), file]);
      assert.equal(one.code, 0, one.stderr);
      assert.match(one.stdout, /^signature valid \(23 bytes\)$/m);
      const two = await run(['verify', '--secret', 'old', '--secret', 'new', '--signature', sign('new', body), file]);
      assert.equal(two.code, 0);
      assert.match(two.stdout, /signature valid with secret #2 of 2/);
    });

    it('exits 1 with the reason when the signature is wrong or malformed', async () => {
      const wrong = await run(['verify', '--secret', 'new', '--signature', sign('other', body), file]);
      assert.equal(wrong.code, 1);
      assert.match(wrong.stdout, /signature invalid: the signature does not match the body with any configured secret/);
      const malformed = await run(['verify', '--secret', 'new', '--signature', 'sha1=abc', file]);
      assert.equal(malformed.code, 1);
      assert.match(malformed.stdout, /not of the form sha256=/);
      const empty = await run(['verify', '--secret', 'new', '--signature', '', file]);
      assert.equal(empty.code, 1);
      assert.match(empty.stdout, /header is missing/);
    });

    it('reads the raw body from stdin (absent FILE or -): one changed byte fails', async () => {
      assert.equal((await run(['verify', '--secret', 's', '--signature', sign('s', body)], body)).code, 0);
      assert.equal((await run(['verify', '--secret', 's', '--signature', sign('s', body), '-'], body)).code, 0);
      const trimmed = body.subarray(0, body.length - 1);
      assert.equal((await run(['verify', '--secret', 's', '--signature', sign('s', body), '-'], trimmed)).code, 1);
    });

    it('--explain runs the signature doctor', async () => {
      const trimmed = body.subarray(0, body.length - 1);
      const r = await run(['verify', '--secret', 's', '--signature', sign('s', trimmed), '--explain', file]);
      assert.equal(r.code, 1);
      assert.match(r.stdout, /^signature does not match$/m);
      assert.match(r.stdout, /trailing newline/);
      const ok = await run(['verify', '--secret', 's', '--signature', sign('s', body), '--explain', file]);
      assert.equal(ok.code, 0);
      assert.match(ok.stdout, /^signature valid/m);
      // rotation: with --explain the exit code still follows verification against every secret
      const rotated = await run(['verify', '--secret', 'old', '--secret', 'new', '--signature', sign('new', body), '--explain', file]);
      assert.equal(rotated.code, 0, rotated.stdout);
      assert.match(rotated.stdout, /signature valid with secret #2 of 2/);
    });

    it('verifies what send delivered (round trip through a receiver)', async () => {
      assert.equal((await run(['send', 'release', '--to', target.url, '--secret', 'rt'])).code, 0);
      const got = target.received[0]!;
      const saved = join(dir, 'received.json');
      writeFileSync(saved, got.body);
      const r = await run(['verify', '--secret', 'rt', '--signature', String(got.headers['x-service-signature']), saved]);
      assert.equal(r.code, 0, r.stdout);
    });

    it('exits 2 on usage errors and unreadable files', async () => {
      assert.match((await run(['verify', '--signature', sign('s', body), file])).stderr, /at least one --secret/);
      assert.match((await run(['verify', '--secret', 's', file])).stderr, /--signature is required/);
      const unreadable = await run(['verify', '--secret', 's', '--signature', sign('s', body), join(dir, 'missing.json')]);
      assert.equal(unreadable.code, 2);
      assert.match(unreadable.stderr, /cannot read .*missing\.json \(ENOENT\)/);
      assert.equal((await run(['verify', '--secret', 's', '--signature', 'x', dir])).code, 2, 'a directory is not a body');
      assert.equal((await run(['verify', '--secret', 's', '--signature', 'x', file, file])).code, 2);
    });

    it('has a full --help', async () => {
      const r = await run(['verify', '--help']);
      assert.equal(r.code, 0);
      assert.match(r.stdout, /^Usage: service-hooks verify --secret S/);
      for (const flag of ['--secret', '--signature', '--explain']) assert.ok(r.stdout.includes(flag), flag);
    });
  });
});
