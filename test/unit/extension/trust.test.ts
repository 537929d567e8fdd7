// Pins Restricted Mode in the manifest: `limited` support, every workspace-settable setting either
// restricted or named harmless, the commands that stay on, and a welcome that offers Manage Workspace Trust.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS, SETTINGS } from '../../../src/extension/ids';
import { HARMLESS_SETTINGS, RESTRICTED_SETTINGS, WORKS_IN_RESTRICTED_MODE, needsTrust, restrictedMessage } from '../../../src/extension/trust/trustTable';

const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8'));
const props: Record<string, { scope?: string }> = pkg.contributes.configuration.properties;

describe('workspace trust: package.json capabilities', () => {
  it('declares limited support with a description, and the restricted settings', () => {
    const t = pkg.capabilities?.untrustedWorkspaces;
    assert.equal(t?.supported, 'limited');
    assert.match(t.description, /linter/);
    assert.deepEqual([...t.restrictedConfigurations].sort(), [...RESTRICTED_SETTINGS].sort());
  });

  it('every setting a workspace can set is restricted or named harmless; machine ones are not listed', () => {
    for (const [key, p] of Object.entries(props)) {
      const workspaceSettable = p.scope !== 'machine' && p.scope !== 'application';
      if (workspaceSettable) assert.ok(RESTRICTED_SETTINGS.includes(key) !== HARMLESS_SETTINGS.includes(key), `${key}: restricted or harmless (exactly one)`);
      else assert.ok(!RESTRICTED_SETTINGS.includes(key), `${key} is machine-scoped already`);
    }
    for (const key of [SETTINGS.relayPort, SETTINGS.repositories, SETTINGS.eventHeader, SETTINGS.deliveryHeader])
      assert.ok(RESTRICTED_SETTINGS.includes(key), key);
    for (const key of [SETTINGS.baseUrl, SETTINGS.relayForwardUrl, SETTINGS.relayForwardCa]) assert.equal(props[key]?.scope, 'machine', key);
  });

  it('virtual workspaces: limited, saying the linter works', () => {
    assert.equal(pkg.capabilities.virtualWorkspaces?.supported, 'limited');
    assert.match(pkg.capabilities.virtualWorkspaces.description, /linter/);
  });

  it('the linter and the port report stay on; signing in, the relay, forwarding, sending and the runner need trust', () => {
    for (const id of [COMMANDS.fixAllInFile, COMMANDS.fixAllWorkflowNames, COMMANDS.portWorkflows]) assert.ok(!needsTrust(id), id);
    for (const id of [
      COMMANDS.signIn,
      COMMANDS.startRelay,
      COMMANDS.connectRelay,
      COMMANDS.forwardToLocalApp,
      COMMANDS.sendSampleEvent,
      COMMANDS.pingWebhook,
      COMMANDS.replayDelivery,
      COMMANDS.setUpRunner,
    ])
      assert.ok(needsTrust(id), id);
    assert.ok(needsTrust('serviceHooks.someCommandAddedLater'), 'a new command is off until listed');
    for (const id of WORKS_IN_RESTRICTED_MODE) assert.ok(Object.values(COMMANDS).includes(id), id);
    assert.match(restrictedMessage(COMMANDS.startRelay, 'Start Relay'), /^Start Relay is off in Restricted Mode: .*runs the relay/);
  });

  it('each view has a Restricted Mode welcome with Manage Workspace Trust, and the others only show when trusted', () => {
    const welcome: { view: string; when: string; contents: string }[] = pkg.contributes.viewsWelcome;
    for (const view of ['serviceHooks.webhooks', 'serviceHooks.relay']) {
      assert.ok(
        welcome.some((w) => w.view === view && w.when === '!isWorkspaceTrusted' && w.contents.includes('command:workbench.trust.manage')),
        view,
      );
    }
    for (const w of welcome.filter((x) => x.when !== '!isWorkspaceTrusted')) assert.match(w.when, /^isWorkspaceTrusted && /, w.when);
  });
});
