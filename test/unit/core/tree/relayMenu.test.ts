// The relay status bar item's menu: what a click offers in each state; the actions that end
// something (Disconnect…, Stop Relay…) ask first (confirm), and a failed relay offers its logs and
// another port.
import { strict as assert } from 'node:assert';
import { relayMenu } from '../../../../src/core/tree';

const commands = (items: ReturnType<typeof relayMenu>) => items.map((i) => i.command);

describe('relay menu', () => {
  it('connected to a remote relay: show the view, copy the secret, Disconnect… (which asks)', () => {
    const items = relayMenu({ state: 'running', remote: 'relay.example.com', ownsProcess: false, hasSecret: true });
    assert.deepEqual(commands(items), ['serviceHooks.relay.focus', 'serviceHooks.copySigningSecret', 'serviceHooks.disconnectRelay']);
    assert.deepEqual(items[2]!.args, { confirm: true });
  });
  it('a remote relay that refused the token: Connect to Relay…, not Disconnect', () => {
    assert.deepEqual(commands(relayMenu({ state: 'failed', remote: 'relay.example.com', ownsProcess: false, hasSecret: false })), [
      'serviceHooks.relay.focus',
      'serviceHooks.connectRelay',
    ]);
  });
  it('the relay started here: Stop Relay… (which asks); no secret row without a secret', () => {
    const items = relayMenu({ state: 'running', port: 8788, ownsProcess: true, hasSecret: false });
    assert.deepEqual(commands(items), ['serviceHooks.relay.focus', 'serviceHooks.stopRelay']);
    assert.deepEqual(items[1]!.args, { confirm: true });
    assert.match(items[1]!.detail!, /started here on port 8788/);
  });
  it("a relay found on the port (the demo's): Stop Relay… only lets go of it", () => {
    const items = relayMenu({ state: 'running', port: 8788, ownsProcess: false, hasSecret: false });
    assert.match(items.find((i) => i.command === 'serviceHooks.stopRelay')!.detail!, /keeps running/);
  });
  it('no relay: Start Relay and Connect to Relay…; failed: also Show Logs and Change Relay Port…', () => {
    assert.deepEqual(commands(relayMenu({ state: 'stopped', ownsProcess: false, hasSecret: false })), [
      'serviceHooks.relay.focus',
      'serviceHooks.startRelay',
      'serviceHooks.connectRelay',
    ]);
    assert.deepEqual(commands(relayMenu({ state: 'failed', ownsProcess: false, hasSecret: false })).slice(-2), [
      'serviceHooks.showLogs',
      'serviceHooks.changeRelayPort',
    ]);
  });
});
