// `service-hooks forward`'s state file (relay/cli/forwardState.ts): one per relay and channel,
// 0600, written whole, and a damaged one named with what to do.
import { strict as assert } from 'node:assert';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultStateFile, readStateFile, StateFileError, writeStateFile } from '../../../relay/cli/forwardState';
import { tempDir } from '../relay/helpers';

describe('forward state file', () => {
  it('one file per relay and channel, under XDG_STATE_HOME (else ~/.local/state)', () => {
    const env = { HOME: '/home/dev' };
    const a = defaultStateFile(env, 'ws://127.0.0.1:8788', undefined);
    assert.equal(a, defaultStateFile(env, 'ws://127.0.0.1:8788/ws', undefined), 'the /ws path names the same relay');
    assert.match(a, /^\/home\/dev\/\.local\/state\/service-hooks\/forward\/127\.0\.0\.1_8788-all-[0-9a-f]{12}\.json$/);
    assert.notEqual(defaultStateFile(env, 'wss://relay.example.com', 'alice'), defaultStateFile(env, 'wss://relay.example.com', 'bob'));
    assert.match(
      defaultStateFile({ ...env, XDG_STATE_HOME: '/state' }, 'wss://relay.example.com', 'alice'),
      /^\/state\/service-hooks\/forward\/relay\.example\.com_443-alice-/,
    );
  });

  it('is written 0600 and read back; a damaged one is a clear error naming the file', () => {
    const file = join(tempDir(), 'deep', 'f.json');
    assert.equal(readStateFile(file), undefined, 'none yet');
    writeStateFile(file, { lastSeq: 7, retrying: [{ seq: 5, channel: 'dev', attempts: 1, nextAt: 1, lastStatus: 500 }] });
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(readStateFile(file), { lastSeq: 7, retrying: [{ seq: 5, channel: 'dev', attempts: 1, nextAt: 1, lastStatus: 500 }] });
    writeFileSync(file, '{"lastSeq": 7, "retr');
    assert.throws(
      () => readStateFile(file),
      (err: Error) => err instanceof StateFileError && err.message.includes(file) && /--since/.test(err.message),
    );
    writeFileSync(file, '{"lastSeq": "7", "retrying": []}');
    assert.throws(() => readStateFile(file), /unexpected content/);
  });
});
