// Reads asked again while unanswered (relay/server/nats/hedged.ts, issue 21): a direct get that a
// hung replica swallowed no longer holds a subscriber's delivery for the request's time-out.
import { strict as assert } from 'node:assert';
import { NoRespondersError, RequestError } from '@nats-io/transport-node';
import { hedged, isNotFound, readMessage, type StreamMessage } from '../../../relay/server/nats/hedged';
import { NoMessageError, noResponders } from '../../../relay/server/nats/apiErrors';

const never = <T>() => new Promise<T>(() => undefined);
const msg = (text: string): StreamMessage => ({ data: Buffer.from(text), header: { get: () => '' } });

describe('hedged reads (a replica that hangs)', () => {
  it('a call left unanswered is asked again beside it, and the first answer wins', async () => {
    const calls: number[] = [];
    const got = await hedged(
      () => {
        calls.push(calls.length);
        return calls.length === 1 ? never<string>() : Promise.resolve(`answer ${calls.length}`);
      },
      { afterMs: 5, calls: 3 },
    );
    assert.equal(got, 'answer 2');
    assert.deepEqual(calls, [0, 1], 'no third call once one answered');
  });

  it('a call that fails starts the next at once; when all fail, a preferred error ("not found") is kept over the others', async () => {
    let n = 0;
    const errors = [new Error('TIMEOUT'), new NoMessageError('S', 7), new Error('TIMEOUT')];
    await assert.rejects(
      hedged(() => Promise.reject(errors[n++]!), { afterMs: 60_000, calls: 3, preferred: isNotFound }),
      /no message found/,
    );
    assert.equal(n, 3);
  });

  it('a final error (no responders) starts no further call: the caller backs off instead', async () => {
    let n = 0;
    await assert.rejects(
      hedged(() => (n++, Promise.reject(new RequestError('503', { cause: new NoRespondersError('s') }))), { afterMs: 5, calls: 5, final: noResponders }),
      /503/,
    );
    assert.equal(n, 1);
  });

  it('readMessage asks replicas, and the third time the stream leader', async () => {
    const asked: string[] = [];
    const m = await readMessage(
      {
        direct: (stream, seq) => (asked.push(`direct ${stream} ${seq}`), never()),
        leader: (stream, seq) => (asked.push(`leader ${stream} ${seq}`), Promise.resolve(msg('from the leader'))),
      },
      'S',
      7,
    );
    assert.equal(Buffer.from(m.data).toString(), 'from the leader');
    assert.deepEqual(asked, ['direct S 7', 'direct S 7', 'leader S 7']);
  });
});
