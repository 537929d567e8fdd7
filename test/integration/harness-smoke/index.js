// A minimal extension-host suite that proves scripts/run-integration.mjs itself works (code-server
// starts, the payload loads this repo as the development extension and this file as the tests, the
// report file reaches the runner, mocha's exit code comes back):
//   SERVICE_HOOKS_INTEGRATION_SUITE=test/integration/harness-smoke/index.js npm run test:integration
// The extension's real suite is test/integration/suite/index.ts. Plain CommonJS: no build step.
'use strict';
const { mkdirSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const mochaModule = require('mocha');
const Mocha = mochaModule.default ?? mochaModule; // mocha 12 is ESM; require() gives its namespace

function reportPath() {
  return process.env.SERVICE_HOOKS_TEST_REPORT || join(__dirname, '..', '..', '..', 'test-results', 'integration-report.json');
}

function write(report) {
  const path = reportPath();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(report, null, 2) + '\n');
  const lines = report.tests.map((t) => `${t.state === 'passed' ? 'ok  ' : 'FAIL'} ${t.title}${t.error ? `\n     ${t.error}` : ''}`);
  lines.push('', `${report.passes} passing, ${report.failures} failing, 0 pending${report.done ? '' : ' (running)'}`);
  writeFileSync(path.replace(/\.json$/, '') + '.txt', lines.join('\n') + '\n');
}

exports.run = async function run() {
  const vscode = require('vscode');
  const assert = require('node:assert/strict');
  const mocha = new Mocha({ ui: 'bdd', timeout: 30_000, color: false, reporter: 'spec' });
  mocha.suite.emit('pre-require', globalThis, __filename, mocha);
  const report = { startedAt: new Date().toISOString(), done: false, passes: 0, failures: 0, pending: 0, tests: [], figures: {} };

  describe('harness smoke (extension host inside code-server)', () => {
    it('runs in a VS Code 1.100 extension host with a workspace folder', () => {
      assert.match(vscode.version, /^1\.100\./);
      assert.ok(vscode.workspace.workspaceFolders?.length, 'the runner opens a workspace folder');
    });
    it('loads this repository as the extension under development and activates it', async () => {
      const ext = vscode.extensions.getExtension('service-hooks.service-hooks');
      assert.ok(ext, 'extension service-hooks.service-hooks is loaded from extensionDevelopmentPath');
      await ext.activate();
      assert.equal(ext.isActive, true);
    });
    it('sees the serviceHooks.* commands the manifest contributes', () => {
      const ext = vscode.extensions.getExtension('service-hooks.service-hooks');
      const ids = ext.packageJSON.contributes.commands.map((c) => c.command);
      for (const id of ['serviceHooks.signIn', 'serviceHooks.pingWebhook', 'serviceHooks.retryDelivery', 'serviceHooks.addWebhook']) {
        assert.ok(ids.includes(id), `${id} is contributed`);
      }
    });
  });

  write(report);
  const failures = await new Promise((resolve) => {
    const runner = mocha.run(resolve);
    runner.on('pass', (t) => {
      report.passes++;
      report.tests.push({ title: t.fullTitle(), state: 'passed' });
      write(report);
    });
    runner.on('fail', (t, err) => {
      report.failures++;
      report.tests.push({ title: t.fullTitle(), state: 'failed', error: err.message });
      write(report);
    });
    runner.on('end', () => {
      report.done = true;
      write(report);
    });
  });
  if (failures > 0) throw new Error(`${failures} smoke test(s) failed`);
};
