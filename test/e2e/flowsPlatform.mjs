// UI flows of issue 39 (kept apart from flows.mjs, which lists them at its end), each in a fresh
// code-server of its own (a first install: no state from the other flows):
// - Restricted Mode, with workspace trust on and the workspace untrusted: the linter's diagnostic
//   shows, Start Relay says why it is off, and granting trust makes it work without a reload;
// - Getting Started: the walkthrough opens by itself once after install, its steps complete as the
//   user signs in, starts the relay and ports a workflow, and it does not open again after a reload.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, installVsix, prepareDataDir, startCodeServer } from '../../scripts/lib/code-server.mjs';
import { freePort } from '../../scripts/lib/freePort.mjs';
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
  const settingsFile = join(prepareDataDir(csDir).userDataDir, 'User', 'settings.json');
  mergeJsonFile(settingsFile, userSettings);
  const cs = await startCodeServer({ workspace, dataDir: csDir, workspaceTrust, logFile: join(scratch, 'code-server.log') });
  return { cs, workspace, settingsFile, openUrl: `${cs.url}/?folder=${encodeURIComponent(workspace)}` };
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
      } catch (err) {
        await tab.screenshot({ path: join(RESULTS, `failure-own-tab.png`) }).catch(() => {});
        throw err;
      } finally {
        await tab.close().catch(() => {});
        await cs.stop();
      }
    },
  },
  {
    name: 'Getting Started: opens once after install, its steps complete as the user acts, not again after a reload',
    slow: 2,
    async run({ page, demo }) {
      const scratch = mkdtempSync(join(tmpdir(), 'sh-e2e-walkthrough-'));
      const relayPort = await freePort();
      const { cs, openUrl, settingsFile } = await ownCodeServer(scratch, {
        // A start-up editor other than 'none' (the harness's default): VS Code's own walkthrough-on-install is on.
        userSettings: {
          'workbench.startupEditor': 'welcomePageInEmptyWorkbench',
          'serviceHooks.baseUrl': demo.emulatorUrl,
          'serviceHooks.relay.port': relayPort,
        },
      });
      const tab = await page.context().newPage();
      try {
        const wb = new Workbench(tab, { timeoutMs: 30_000 });
        await wb.open(openUrl, 'Service');
        const walkthrough = tab.locator('.gettingStartedContainer', { hasText: 'Get Started with Service Webhooks' });
        await walkthrough.waitFor();
        const step = (title) => walkthrough.locator('.getting-started-step', { hasText: title });
        const done = (title) => step(title).locator('.codicon-pass-filled, .codicon-getting-started-step-checked').first();
        for (const title of ['Sign in to the service', 'Receive deliveries: start the local relay', 'Port a workflow']) {
          if (await done(title).count()) throw new Error(`the step "${title}" is complete before the user did it`);
        }
        // Each step's own button, as a user follows the walkthrough.
        const press = async (title, button) => {
          await step(title).locator('.step-title, h3').first().click();
          await step(title).locator('.monaco-button, a', { hasText: button }).first().click();
        };
        await press('Sign in to the service', 'Sign In');
        await wb.submitInput(demo.token, { title: 'Sign in to the service' });
        await done('Sign in to the service').waitFor();
        await press('Receive deliveries: start the local relay', 'Start Relay');
        await wb.notification(`Relay running on port ${relayPort}`).waitFor();
        await done('Receive deliveries: start the local relay').waitFor();
        await wb.runCommand(`${PALETTE}: Stop Relay`);
        await tab.locator('.statusbar-item', { hasText: 'Relay off' }).first().waitFor();
        await press('Port a workflow', 'Port Workflows…');
        await tab.locator('.tabs-container .tab', { hasText: 'Workflow Port Report' }).waitFor();
        await tab.locator('.tabs-container .tab', { hasText: 'Walkthrough' }).first().click();
        await done('Port a workflow').waitFor();
        await tab.screenshot({ path: join(RESULTS, 'walkthrough.png') });
        // Before the reload: a start-up editor that is not the welcome page, still not 'none' (the
        // extension's own condition), so only the extension could open the walkthrough again.
        mergeJsonFile(settingsFile, { 'workbench.startupEditor': 'newUntitledFile' });
        for (let open = await tab.locator('.tabs-container .tab').count(); open > 0; open--) {
          await tab.locator('.tabs-container .tab .codicon-close').first().click();
          await tab
            .locator('.tabs-container .tab')
            .nth(open - 1)
            .waitFor({ state: 'detached' });
        }
        // Reload Window (not the browser's reload): it waits for the workbench to store its state.
        const loaded = tab.waitForEvent('load', { timeout: 90_000 });
        loaded.catch(() => {}); // awaited below; a failure before that is reported by the step that failed
        await wb.runCommand('Developer: Reload Window');
        await loaded;
        await tab.waitForSelector('.monaco-workbench', { timeout: 90_000 });
        await wb.activityItem('Service').waitFor({ timeout: 90_000 });
        await tab.locator('.statusbar-item', { hasText: 'Relay' }).first().waitFor(); // the extension is active again
        await wb.runCommand(`${PALETTE}: Show Activation Time`);
        await wb
          .notification(/activat/i)
          .first()
          .waitFor();
        if (await tab.locator('.tabs-container .tab', { hasText: /Walkthrough|Welcome/ }).count())
          throw new Error('the walkthrough opened again by itself after a reload');
      } catch (err) {
        await tab.screenshot({ path: join(RESULTS, `failure-own-tab.png`) }).catch(() => {});
        throw err;
      } finally {
        await tab.close().catch(() => {});
        await cs.stop();
      }
    },
  },
];
