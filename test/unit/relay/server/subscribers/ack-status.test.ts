// A subscriber's ack records only an integer HTTP status 100-599 (issue 20 item 7): 1e308 and -7
// were recorded as "subscriber ok". Anything else refuses the ack with a clear error message.
import { strict as assert } from 'node:assert';
import WebSocket from 'ws';
import { startRelay, type RelayServer } from '../../../../../relay/server';
import { post, tempDir } from '../../support/helpers';
import { until } from '../../../../support/until';

describe('relay: subscriber ack status', function () {
  this.timeout(30_000);
  let relay: RelayServer;
  before(async () => (relay = await startRelay({ port: 0, dataDir: tempDir() })));
  after(async () => relay.close());

  it('refuses a forwarded.status that is no integer HTTP status, records a valid one', async () => {
    const seq = ((await post(`${relay.url}/hooks/default`, '{"n":1}')).json as { seq: number }).seq;
    const ws = new WebSocket(`ws://127.0.0.1:${relay.port}/ws?since=0`, { headers: { authorization: `Bearer ${relay.token}` } });
    const messages: { type: string; error?: string; seq?: number; state?: { lastStatus?: number } }[] = [];
    ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
    const arrived = (type: string) =>
      until(
        () => messages.some((m) => m.type === type) || undefined,
        (wake) => (ws.on('message', wake), () => ws.off('message', wake)),
      );
    await arrived('delivery');
    const bad: unknown[] = [1e308, -7, 99, 600, 200.5, '200', null, { status: 200 }];
    for (const status of bad) ws.send(JSON.stringify({ type: 'ack', seq, forwarded: { status } }));
    ws.send(JSON.stringify({ type: 'ack', seq, forwarded: 'yes' }));
    ws.send(JSON.stringify({ type: 'ack', seq, forwarded: { status: 204 } }));
    await arrived('forward');
    ws.close();
    const errors = messages.filter((m) => m.type === 'error');
    assert.equal(errors.length, bad.length + 1, JSON.stringify(messages));
    for (const e of errors) assert.match(e.error!, new RegExp(`ack of seq ${seq} refused: forwarded.status must be an integer HTTP status from 100 to 599`));
    const forward = messages.find((m) => m.type === 'forward')!;
    assert.equal(forward.state?.lastStatus, 204, 'the first status recorded is the valid one');
    assert.equal(relay.store.get(seq)!.summary.forward.find((f) => f.target === 'subscriber')?.lastStatus, 204);
  });
});
