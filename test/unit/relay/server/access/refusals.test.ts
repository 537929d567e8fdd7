// Pins issue 36.9 and 36.11: every refused request (ingress, API, WebSocket, page sign-in, /metrics
// on the relay's port and on --metrics-listen) is logged once per source, reason and minute, without
// what was presented, and counted in relay_requests_rejected_total under its own reason; the
// --metrics-listen listener checks the Host header as the relay's port does (DNS rebinding).
import { strict as assert } from 'node:assert';
import { request } from 'undici';
import WebSocket from 'ws';
import { startRelay, type RelayServer } from '../../../../../relay/server';
import { post, tempDir } from '../../support/helpers';
import { sample, scrape } from '../../support/metricsText';
import { TOKEN_SUBPROTOCOL_PREFIX } from '../../../../../src/core/relay/protocol';

const WRONG = 'wrong-token-0123456789abcdef';

/** The status a WebSocket upgrade was refused with. */
function wsStatus(url: string, protocols: string[], headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { headers });
    ws.once('unexpected-response', (_req, res) => (resolve(res.statusCode ?? 0), ws.terminate()));
    ws.once('open', () => (ws.close(), reject(new Error('the upgrade was accepted'))));
    ws.once('error', (err) => reject(err));
  });
}

async function status(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<number> {
  const res = await request(url, { method: (init.method ?? 'GET') as 'GET', headers: init.headers, body: init.body });
  await res.body.dump();
  return res.statusCode;
}

describe('refusals: logged once per source and interval, counted under their own reason (issue 36.9, 36.11)', function () {
  this.timeout(30_000);
  let relay: RelayServer;
  let own: RelayServer;
  const lines: string[] = [];
  let now = 1_000_000;

  before(async () => {
    relay = await startRelay({ port: 0, dataDir: tempDir(), secrets: ['refusals-secret-0123456789'], log: (l) => lines.push(l), now: () => now });
    own = await startRelay({ port: 0, dataDir: tempDir(), metrics: { port: 0 }, log: (l) => lines.push(l), now: () => now });
  });
  after(async () => {
    await relay.close();
    await own.close();
  });

  // Each row: what is refused, how, its status, its reason label and the start of its log line.
  const rows: { what: string; send: () => Promise<number>; status: number; reason: string; line: RegExp; metricsOf?: () => RelayServer }[] = [
    {
      what: 'a page sign-in with a wrong token',
      send: () =>
        status(`${relay.url}/page/session`, {
          method: 'POST',
          headers: { origin: relay.url, 'content-type': 'application/json' },
          body: JSON.stringify({ token: WRONG }),
        }),
      status: 401,
      reason: 'token',
      line: /^refused a page sign-in from 127\.0\.0\.1: missing or wrong token/,
    },
    {
      what: 'a WebSocket with a wrong token',
      send: () => wsStatus(`${relay.url.replace('http', 'ws')}/ws`, [`${TOKEN_SUBPROTOCOL_PREFIX}${WRONG}`]),
      status: 401,
      reason: 'token',
      line: /^refused a WebSocket from 127\.0\.0\.1: missing or wrong token/,
    },
    {
      what: 'a WebSocket with a foreign Host',
      send: () => wsStatus(`${relay.url.replace('http', 'ws')}/ws`, [`${TOKEN_SUBPROTOCOL_PREFIX}${relay.token}`], { host: 'rebound.example' }),
      status: 403,
      reason: 'host',
      line: /^refused a WebSocket from 127\.0\.0\.1: forbidden Host header/,
    },
    {
      what: '/metrics with a wrong token',
      send: () => status(`${relay.url}/metrics`, { headers: { authorization: `Bearer ${WRONG}` } }),
      status: 401,
      reason: 'token',
      line: /^refused a metrics scrape from 127\.0\.0\.1: missing or wrong token/,
    },
    {
      what: 'the API with a wrong token',
      send: () => status(`${relay.url}/api/status`, { headers: { authorization: `Bearer ${WRONG}` } }),
      status: 401,
      reason: 'token',
      line: /^refused an API request from 127\.0\.0\.1: missing or wrong token/,
    },
    {
      what: "a browser's post to ingress, on a relay without an allow-list",
      send: async () => (await post(`${relay.url}/hooks/default`, '{}', { origin: 'https://evil.example' })).status,
      status: 403,
      reason: 'browser',
      line: /^refused a delivery to channel 'default' from 127\.0\.0\.1: a browser's cross-site request/,
    },
    {
      what: 'a delivery with a wrong signature',
      send: async () => (await post(`${relay.url}/hooks/default`, '{}', { 'x-service-signature': 'sha256=00' })).status,
      status: 401,
      reason: 'signature',
      line: /^refused a delivery to channel 'default' from 127\.0\.0\.1: the signature did not verify/,
    },
    {
      what: '--metrics-listen with a foreign Host (DNS rebinding)',
      send: () => status(own.metricsUrl!, { headers: { host: 'rebound.example' } }),
      status: 403,
      reason: 'host',
      line: /^refused a metrics scrape from 127\.0\.0\.1: forbidden Host header/,
      metricsOf: () => own,
    },
  ];

  const counted = async (r: RelayServer, reason: string) => {
    const text = r === own ? (await scrape(own.metricsUrl!)).text : (await scrape(relay.metricsUrl!, relay.token)).text;
    return sample(text, 'relay_requests_rejected_total', { reason });
  };

  for (const row of rows) {
    it(`${row.what}: ${row.status}, one line, counted as '${row.reason}'`, async () => {
      const target = row.metricsOf?.() ?? relay;
      const before = await counted(target, row.reason);
      const allowListBefore = await counted(target, 'allow-list');
      lines.length = 0;
      now += 120_000; // a new interval: the first refusal of each source is logged
      for (let i = 0; i < 3; i++) assert.equal(await row.send(), row.status);
      const logged = lines.filter((l) => row.line.test(l));
      assert.equal(logged.length, 1, `one line for three refusals from one source:\n${lines.join('\n')}`);
      assert.ok(!lines.some((l) => l.includes(WRONG)), 'the presented token is never logged');
      assert.equal((await counted(target, row.reason)) - before, 3);
      assert.equal(await counted(target, 'allow-list'), allowListBefore, 'nothing counted as allow-list');
      now += 61_000;
      assert.equal(await row.send(), row.status);
      assert.match(lines.filter((l) => row.line.test(l)).at(-1) ?? '', /\(2 more from it since the last line\)$/, 'the next interval says how many');
    });
  }

  it('--metrics-listen still answers its own Host names (the bound host, localhost)', async () => {
    const port = new URL(own.metricsUrl!).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) assert.equal(await status(own.metricsUrl!, { headers: { host } }), 200, host);
  });
});
