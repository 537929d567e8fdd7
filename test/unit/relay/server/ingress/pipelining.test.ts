// A valid delivery pipelined before a malformed request (issue 10.8): its sender gets the valid
// one's answer (200 with its seq) first, then 400, then the connection closes. Raw sockets.
import { strict as assert } from 'node:assert';
import { connect } from 'node:net';
import { relayPerTest } from '../../support/helpers';

/** Writes `bytes` on one connection and resolves with everything read until the relay closes it. */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.write(bytes));
    let out = '';
    s.on('data', (c: Buffer) => (out += c.toString('latin1')));
    s.on('close', () => resolve(out));
    s.on('error', reject);
  });
}

describe('relay: pipelined requests', function () {
  this.timeout(30_000);
  const relay = relayPerTest();

  it('answers a valid delivery before refusing the malformed request behind it', async () => {
    const valid = 'POST /hooks/default HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n{"ok":11}';
    const malformed = 'POST /hooks/default HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: nope\r\n\r\n';
    const out = await exchange(relay().port, valid + malformed);
    const statuses = [...out.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]);
    assert.deepEqual(statuses, ['200', '400'], out);
    assert.match(out, /\{"seq":1,"verification":"unverified"\}/);
    assert.equal(relay().store.lastSeq, 1);
  });

  it('still refuses a malformed request at once when nothing is in flight', async () => {
    const out = await exchange(relay().port, 'GARBAGE\r\n\r\n');
    assert.match(out, /^HTTP\/1\.1 400 Bad Request\r\n/);
  });
});
