// Pins issue 36 item 3: a relay is not trusted. `service-hooks forward` (a child process) checks
// every field of every message a hostile relay sends: a message without a delivery, or with a seq
// that is a string, is one clear line and a reconnect (not a crash, not a resume point in the
// state file); a bad message beside the stream is one line and ignored; an event name with ESC and
// C1 controls is printed escaped. The hostile relay is a WebSocket server of this test's own.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { connect } from 'node:net';
import { cli, relayProcesses, spawnRelayWithData, startTarget, tempDir, type TargetApp } from '../support/helpers';
import { childEnv, runCli } from '../support/publicHelpers';
import { serverMessageProblem } from '../../../../relay/client/serverMessageCheck';
import { bare } from '../support/forwarderProcess';

const HELLO = { type: 'hello', lastSeq: 0, since: 0, scope: { kind: 'admin' } };

function delivery(seq: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const body = Buffer.from('{"n":1}');
  return {
    seq,
    channel: 'dev',
    receivedAt: '2026-11-27T00:00:00.000Z',
    verification: 'unverified',
    event: 'push',
    size: body.length,
    forward: [],
    headers: { 'content-type': 'application/json' },
    bodyBase64: body.toString('base64'),
    ...extra,
  };
}

describe('a relay is not trusted: its messages are checked', function () {
  this.timeout(60_000);
  let app: TargetApp | undefined;
  let wss: WebSocketServer | undefined;
  afterEach(async () => {
    await app?.close();
    await new Promise<void>((r) => (wss ? wss.close(() => r()) : r()));
    for (const c of wss?.clients ?? []) c.terminate();
  });

  it('every field, one line each: a bad seq is never a resume point, nothing crashes', () => {
    const table: [unknown, RegExp | undefined][] = [
      [HELLO, undefined],
      [{ type: 'some-newer-type', x: 1 }, undefined],
      [{ type: 'delivery', delivery: delivery(7) }, undefined],
      [{ type: 'delivery' }, /^delivery must be a delivery, got nothing$/],
      [{ type: 'delivery', delivery: delivery('5') }, /^delivery\.seq must be a non-negative safe integer, got "5"$/],
      [{ type: 'delivery', delivery: delivery(1e300) }, /^delivery\.seq must be a non-negative safe integer, got 1e\+300$/],
      [{ type: 'delivery', delivery: delivery(2.5) }, /^delivery\.seq must be .*, got 2\.5$/],
      [{ type: 'replay', delivery: delivery(-1) }, /^delivery\.seq must be/],
      [{ type: 'delivery', delivery: delivery(3, { event: 7 }) }, /^delivery\.event must be a string or absent, got 7$/],
      [{ type: 'delivery', delivery: delivery(3, { headers: { a: 1 } }) }, /^delivery\.headers must be an object of strings or absent/],
      [{ type: 'delivery', delivery: delivery(3, { channel: 'x\u009b2J' }) }, undefined],
      // A filter's skip, as the relay records it (issue 38): a state like the others, in a delivery and in a forward message.
      [{ type: 'delivery', delivery: delivery(4, { forward: [{ target: 'subscriber', status: 'skipped', attempts: 0 }] }) }, undefined],
      [
        {
          type: 'forward',
          seq: 4,
          attempt: { target: 'subscriber', at: '2026-11-27T00:00:00.000Z', ok: false, durationMs: 0, error: 'skipped by the filter' },
          state: { target: 'subscriber', status: 'skipped', attempts: 0 },
        },
        undefined,
      ],
      [{ type: 'delivery', delivery: delivery(4, { forward: [{ target: 'subscriber', status: 'gone', attempts: 0 }] }) }, /^delivery\.forward must be/],
      [{ type: 'hello', lastSeq: '0', since: 0 }, /^lastSeq must be a non-negative safe integer, got "0"$/],
      [{ ...HELLO, scope: { kind: 'channel' } }, /^scope must be/],
      [{ ...HELLO, scope: { kind: 'channel', channel: 'dev', generation: 'sdKWmwd_w_g' } }, undefined],
      [{ ...HELLO, scope: { kind: 'channel', channel: '../../x' } }, /^scope must be/],
      [{ ...HELLO, scope: { kind: 'channel', channel: 'dev', generation: 'a/b' } }, /^scope must be/],
      [{ type: 'caught-up', lastSeq: 2 ** 53 }, /^lastSeq must be/],
      [{ type: 'forward', seq: 1, attempt: {}, state: {} }, /^attempt must be a forward attempt, got \{\}$/],
      [{ type: 'error', error: '\u001b[2J' }, undefined],
      [{ type: 'error', error: 5 }, /^error must be a string, got 5$/],
      [null, /^it must be an object, got null$/],
      [{ delivery: {} }, /^its type must be a string, got nothing$/],
      [{ type: 'hello', lastSeq: 0, since: 0, bad: '\u001b' }, undefined],
      [{ type: 'hello', lastSeq: '\u001b[2J\u009b', since: 0 }, /^lastSeq must be .*, got "\\u001b\[2J\\x9b"$/],
    ];
    for (const [msg, problem] of table) {
      const got = serverMessageProblem(msg);
      if (problem) assert.match(got ?? '(none)', problem, JSON.stringify(msg));
      else assert.equal(got, undefined, JSON.stringify(msg));
    }
  });

  it('`forward` against a hostile relay: one line per bad message, a reconnect past a bad delivery, the good one posted once, its event name escaped', async () => {
    app = await startTarget();
    const acks: unknown[] = [];
    // Each connection's messages, in order: the third is the one that goes well.
    const script: unknown[][] = [
      [HELLO, { type: 'delivery' }],
      [HELLO, { type: 'delivery', delivery: delivery('5') }],
      [HELLO, { type: 'caught-up', lastSeq: 'x' }, { type: 'delivery', delivery: delivery(1, { event: 'push\u001b]0;owned\u0007\u009b2J' }) }],
    ];
    wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await once(wss, 'listening');
    let n = 0;
    let acked!: () => void;
    const gotAck = new Promise<void>((r) => (acked = r));
    wss.on('connection', (ws: WebSocket) => {
      for (const m of script[Math.min(n++, script.length - 1)]!) ws.send(JSON.stringify(m));
      ws.on('message', (data) => {
        acks.push(JSON.parse(data.toString()));
        acked();
      });
    });
    const state = join(tempDir(), 'state.json');
    const relayUrl = `ws://127.0.0.1:${(wss.address() as { port: number }).port}`;
    const child = spawn(process.execPath, [await cli(), 'forward', '--relay', relayUrl, '--token', 'hostile-test-token', '--to', app.url, '--state', state], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: childEnv(),
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    await Promise.race([gotAck, exited.then((code) => assert.fail(`forward exited (${code}):\n${err}`))]);
    child.kill('SIGTERM');
    assert.equal(await exited, 0, err);

    assert.deepEqual(acks, [{ type: 'ack', seq: 1, forwarded: { status: 200 } }]);
    assert.deepEqual(
      app.received.map((r) => r.body.toString()),
      ['{"n":1}'],
      'the good delivery, once',
    );
    assert.match(
      bare(err),
      /^forward: every channel: the relay sent a bad delivery message: delivery must be a delivery, got nothing; reconnecting in \d+ ms/m,
    );
    assert.match(
      bare(err),
      /^forward: every channel: the relay sent a bad delivery message: delivery\.seq must be a non-negative safe integer, got "5"; reconnecting/m,
    );
    assert.match(bare(err), /^forward: every channel: the relay sent a bad caught-up message: lastSeq must be a non-negative safe integer, got "x"$/m);
    assert.match(bare(out), /^#1 dev push\\x1b\]0;owned\\x07\\x9b2J → 200 /m);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(out + err, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, 'no control character printed raw');
    assert.deepEqual(JSON.parse(readFileSync(state, 'utf8')), { scope: 'admin', lastSeq: 1, retrying: [] });
  });
});

describe("a sender's text is printed escaped (relay process, CLI)", function () {
  this.timeout(60_000);
  const procs = relayProcesses();

  it('`deliveries` shows an event name with a C1 control (byte 0x9b: CSI) as \\x9b, never raw', async () => {
    const { relay, data } = await spawnRelayWithData();
    procs.push(relay);
    // Raw bytes: an HTTP client library refuses such a header, a sender's own code need not (obs-text is valid HTTP).
    const sock = connect(relay.port, '127.0.0.1');
    await once(sock, 'connect');
    const body = '{}';
    let answer = '';
    sock.on('data', (c: Buffer) => (answer += c.toString('latin1')));
    sock.write(
      Buffer.concat([
        Buffer.from(`POST /hooks/default HTTP/1.1\r\nHost: 127.0.0.1:${relay.port}\r\nContent-Type: application/json\r\nX-Service-Event: push`),
        Buffer.from([0x9b]),
        Buffer.from(`2J\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`),
      ]),
    );
    await once(sock, 'close');
    assert.match(answer, /^HTTP\/1\.1 200 /, answer);
    const r = await runCli(['deliveries', '--relay', relay.url, '--data', data]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^#1 .* default {2}push\\x9b2J {2}unverified/m);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(r.stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, 'no control character printed raw');
  });
});
