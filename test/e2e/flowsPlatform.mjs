// UI flows of issue 39 (kept apart from flows.mjs, which lists them at its end): Restricted Mode in
// a code-server of its own with workspace trust on, the workspace untrusted: the linter's
// diagnostic shows, Start Relay says why it is off, and granting trust makes it work without a reload.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, freePort, installVsix, prepareDataDir, startCodeServer } from '../../scripts/lib/code-server.mjs';
import { WORKFLOW, mergeJsonFile } from '../../scripts/start.mjs';
import { Workbench } from './workbench.mjs';

const PALETTE = 'Service Webhooks';
const RESULTS = join(ROOT, 'test-results', 'e2e');

/** A fresh code-server (the packaged VSIX installed) on a fresh workspace holding the sample workflow. */
async function ownCodeServer(scratch, { userSettings = {}, workspaceTrust = false } = {}) {
  const workspace = join(scratch, 'workspace');
  mkdirSync(join(workspace, '.github', 'workflows'), { recursive: true });
  writeFileSync(join(workspace, '.github', 'workflows', 'ci.yml'), WORKFLOW);
  const csDir = join(scratch, 'cs');
  installVsix(join(ROOT, 'dist', 'service-hooks.vsix'), csDir);
  mergeJsonFile(join(prepareDataDir(csDir).userDataDir, 'User', 'settings.json'), userSettings);
  const cs = await startCodeServer({ workspace, dataDir: csDir, workspaceTrust, logFile: join(scratch, 'code-server.log') });
  return { cs, workspace, openUrl: `${cs.url}/?folder=${encodeURIComponent(workspace)}` };
}

export const platformFlows = [
  {
    name: 'Restricted Mode: the linter works, Start Relay says why it is off, granting trust starts it without a reload',
    slow: 2,
    async run({ page }) {
      const scratch = mkdtempSync(join(tmpdir(), 'sh-e2e-trust-'));
      const relayPort = await freePort();
      const { cs, openUrl } = await ownCodeServer(scratch, {
        workspaceTrust: true,
        // No start-up question: an untrusted folder opens in Restricted Mode, as after "No, I don't trust the authors".
        userSettings: { 'security.workspace.trust.startupPrompt': 'never', 'serviceHooks.relay.port': relayPort },
      });
      const tab = await page.context().newPage();
      try {
        const wb = new Workbench(tab, { timeoutMs: 30_000 });
        await wb.open(openUrl, 'Service');
        await wb.openFile('ci.yml');
        // The linter's diagnostic in Restricted Mode.
        await tab.locator('.monaco-editor .squiggly-error, .monaco-editor .squiggly-warning').first().waitFor();
        await wb.runCommand(`${PALETTE}: Start Relay`);
        const off = wb.notification('Start Relay is off in Restricted Mode');
        await off.waitFor();
        await tab.screenshot({ path: join(RESULTS, 'restricted-mode.png') });
        // The message's own button opens the trust editor; trusting there turns the relay on, no reload.
        let reloaded = false;
        tab.on('load', () => (reloaded = true));
        await off.locator('.monaco-button', { hasText: 'Manage Workspace Trust' }).click();
        await tab
          .locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust$/ })
          .first()
          .click();
        await tab.locator('.workspace-trust-editor', { hasText: 'Trusted' }).first().waitFor();
        await wb.clearNotifications();
        await wb.runCommand(`${PALETTE}: Start Relay`);
        await wb.notification(`Relay running on port ${relayPort}`).waitFor();
        if (reloaded) throw new Error('the window reloaded after trust was granted');
        const health = await fetch(`http://127.0.0.1:${relayPort}/healthz`).catch((err) => ({ ok: false, status: String(err) }));
        if (!health.ok) throw new Error(`the relay started after trust does not answer on ${relayPort}: ${health.status}`);
        await wb.runCommand(`${PALETTE}: Stop Relay`);
      } finally {
        await tab.close().catch(() => {});
        await cs.stop();
      }
    },
  },
];
