// Pins issue 42 item 9: docs/team-relay.md's safe set-up, copied as written (docExample.ts puts in
// only this machine's hosts, ports, files and random secrets), is a safe service: three
// nats-servers that take no client without the relays' password and TLS, two relays with
// --public that serve HTTPS only, take deliveries only from the service's addresses (and the
// operator's test address where the page says to add it), only signed ones for configured
// channels, share one store through the authenticated NATS, and never print a secret.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { connect } from '@nats-io/transport-node';
import { Agent, request } from 'undici';
import { sign } from '../../../src/core/signing';
import { relayProcesses, spawnRelay, tempDir, type RelayProcess } from '../relay/support/helpers';
import { exampleCerts, exampleRelay, startExampleNats, type ExampleCerts, type ExampleNats, type ExampleRelaySetup } from './docExample';

describe("docs/team-relay.md's safe set-up, run as written (3 nats-servers, 2 relays)", function () {
  this.timeout(120_000);
  const procs = relayProcesses();
  let certs: ExampleCerts;
  let nats: ExampleNats;
  let setup: ExampleRelaySetup;
  let asWritten: RelayProcess;
  let withTestAddress: RelayProcess;
  let https: Agent;

  before(async () => {
    certs = exampleCerts();
    nats = await startExampleNats(certs);
    setup = exampleRelay(certs, nats);
    https = new Agent({ connect: { ca: readFileSync(certs.ca) } });
    asWritten = await spawnRelay(setup.args(tempDir()), setup.env);
    procs.push(asWritten);
    // "Your own test sends": the page's addition, with this machine's address.
    withTestAddress = await spawnRelay(setup.args(tempDir(), ['--allow-cidr', 'service', '--allow-cidr', '127.0.0.1/32']), setup.env);
    procs.push(withTestAddress);
  });

  after(async () => {
    for (const p of procs.splice(0)) await p.stop('SIGKILL');
    nats?.stop();
    await https?.close();
  });

  /** The relay at 127.0.0.1 (it binds 0.0.0.0 with --public; the test's traffic stays on loopback). */
  function at(relay: RelayProcess): string {
    return `https://127.0.0.1:${relay.port}`;
  }

  async function postTo(relay: RelayProcess, channel: string, body: string, secret?: string): Promise<number> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-service-event': 'ping' };
    if (secret) headers['x-service-signature'] = sign(secret, body);
    const res = await request(`${at(relay)}/hooks/${channel}`, { method: 'POST', body, headers, dispatcher: https });
    await res.body.dump();
    return res.statusCode;
  }

  async function list(relay: RelayProcess, token?: string): Promise<{ status: number; seqs: number[] }> {
    const res = await request(`${at(relay)}/api/deliveries`, { headers: token ? { authorization: `Bearer ${token}` } : {}, dispatcher: https });
    const text = await res.body.text();
    const seqs = res.statusCode === 200 ? (JSON.parse(text) as { deliveries: { seq: number }[] }).deliveries.map((d) => d.seq) : [];
    return { status: res.statusCode, seqs };
  }

  it('NATS takes no client without TLS or without the relays’ password', async () => {
    const plain = await connect({ servers: `127.0.0.1:${nats.ports[0]}`, reconnect: false, timeout: 5000 }).then(
      (nc) => nc.close().then(() => 'connected'),
      (err: Error) => err.message,
    );
    assert.notEqual(plain, 'connected', 'a plain client is refused');
    const noPassword = await connect({
      servers: `127.0.0.1:${nats.ports[1]}`,
      tls: { caFile: certs.ca },
      reconnect: false,
      timeout: 5000,
    }).then(
      (nc) => nc.close().then(() => 'connected'),
      (err: Error) => err.message,
    );
    assert.match(noPassword, /authorization/i, 'a TLS client without the password is refused');
  });

  it('serves HTTPS only: a plain-HTTP request gets no answer', async () => {
    const plainUrl = at(asWritten).replace('https:', 'http:');
    assert.match(asWritten.url, /^https:/);
    const answered = await request(`${plainUrl}/readyz`).then(
      async (r) => (await r.body.dump(), r.statusCode),
      () => undefined,
    );
    assert.notEqual(answered, 200);
  });

  it('as written, deliveries come only from the service’s addresses (this machine gets 403)', async () => {
    const body = '{"as":"written"}';
    assert.equal(await postTo(asWritten, 'payments', body, setup.secrets.payments), 403);
  });

  it("with the page's test address: signed posts are taken, unsigned ones and unknown channels are not", async () => {
    const body = '{"test":"send"}';
    assert.equal(await postTo(withTestAddress, 'payments', body, setup.secrets.payments), 200);
    assert.equal(await postTo(withTestAddress, 'payments', body), 401, 'unsigned');
    assert.equal(await postTo(withTestAddress, 'payments', body, setup.secrets.ci), 401, "another channel's secret");
    assert.notEqual(await postTo(withTestAddress, 'made-up', body, setup.secrets.payments), 200, 'a name that is not a channel is not served');
  });

  it('the API needs the admin token, and both instances share one store through the authenticated NATS', async () => {
    assert.equal((await list(withTestAddress)).status, 401);
    assert.equal((await list(asWritten, 'not-the-token-at-all-0123456789')).status, 401);
    const b = await list(withTestAddress, setup.adminToken);
    assert.equal(b.status, 200);
    assert.ok(b.seqs.length >= 1, 'the signed test send is stored');
    const a = await list(asWritten, setup.adminToken);
    assert.deepEqual(a.seqs, b.seqs, 'the other instance lists the same deliveries');
  });

  it('neither relay prints the admin token, the NATS password or a channel secret', () => {
    for (const relay of [asWritten, withTestAddress]) {
      const printed = relay.stdout() + relay.stderr();
      for (const secret of [setup.adminToken, nats.password, ...Object.values(setup.secrets)]) assert.ok(!printed.includes(secret), `printed: ${printed}`);
    }
  });
});
