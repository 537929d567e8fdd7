// Regression tests: bad input gets 400 (never 500), and a WebSocket `null` message never crashes the relay.
import { strict as assert } from 'node:assert';
import { once } from 'node:events';
import WebSocket from 'ws';
import { relayPerTest } from '../../support/helpers';

describe('relay bad input', function () {
  this.timeout(60_000);
  const relay = relayPerTest();

  it('answers 400 to a channel with bad percent-encoding and to replay/prune bodies that are not JSON objects', async () => {
    const auth = { authorization: `Bearer ${relay().token}`, 'content-type': 'application/json' };
    assert.equal((await fetch(`${relay().url}/hooks/x`, { method: 'POST', body: '{}' })).status, 200);
    assert.equal((await fetch(`${relay().url}/hooks/%E0%A4%A`, { method: 'POST', body: '{}' })).status, 400);
    for (const [path, body] of [
      ['/api/deliveries/1/replay', 'null'],
      ['/api/prune', 'null'],
      ['/api/prune', '[1]'],
      ['/api/prune', '3'],
    ]) {
      const r = await fetch(relay().url + path, { method: 'POST', body, headers: auth });
      assert.equal(r.status, 400, `${path} ${body}`);
      assert.match(((await r.json()) as { error: string }).error, /JSON object/);
    }
  });

  it('ignores a WebSocket message `null` from an authenticated subscriber and keeps serving it', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${relay().port}/ws?since=0`, { headers: { authorization: `Bearer ${relay().token}` } });
    const messages: { type: string }[] = [];
    ws.on('message', (d) => messages.push(JSON.parse(d.toString()) as { type: string }));
    await once(ws, 'open');
    ws.send('null');
    ws.send('42');
    ws.send('"ack"');
    const got = new Promise<void>((resolve) => ws.on('message', (d) => JSON.parse(d.toString()).type === 'delivery' && resolve()));
    assert.equal((await fetch(`${relay().url}/hooks/x`, { method: 'POST', body: '{}' })).status, 200);
    await got;
    ws.close();
    await once(ws, 'close');
    assert.ok(messages.some((m) => m.type === 'delivery'));
  });
});
