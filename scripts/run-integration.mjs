#!/usr/bin/env node
// @ts-check
// `npm run test:integration`: the extension's mocha suite (test/integration/suite/index.ts) inside a
// real VS Code extension host: code-server 4.100.3 (installed on demand into .cache/) driven by
// headless Debian Chromium, with extensionDevelopmentPath = this repo and extensionTestsPath = the
// compiled suite, passed through the workbench URL's `payload` (see workbenchUrl in lib/code-server.mjs).
//
// The suite writes its results to $SERVICE_HOOKS_TEST_REPORT (JSON) and a .txt beside it; this
// runner prints the .txt and exits with mocha's code (window.codeAutomationExit). Never skips: if
// code-server cannot be installed or started, it fails and says why.
//
// Env: SERVICE_HOOKS_INTEGRATION_TIMEOUT_MS (default 600000) — the hard limit for the whole run.
//      SERVICE_HOOKS_INTEGRATION_SUITE — another compiled suite index (default: the extension's).
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makeTestCerts } from './lib/test-certs.mjs';
import { ROOT, ensureCodeServer, log, openBrowser, startCodeServer, workbenchUrl } from './lib/code-server.mjs';

const RESULTS = join(ROOT, 'test-results');
const REPORT_JSON = join(RESULTS, 'integration-report.json');
const REPORT_TXT = join(RESULTS, 'integration-report.txt'); // the suite writes <report without .json>.txt
const TIMEOUT_MS = Number(process.env.SERVICE_HOOKS_INTEGRATION_TIMEOUT_MS ?? 600_000);
const SUITE = resolve(process.env.SERVICE_HOOKS_INTEGRATION_SUITE ?? join(ROOT, 'dist', 'test', 'integration', 'suite', 'index.js'));

function step(cmd, args) {
  log(`$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})`);
}

async function main() {
  const t0 = Date.now();
  mkdirSync(RESULTS, { recursive: true });
  for (const f of [REPORT_JSON, REPORT_TXT]) rmSync(f, { force: true });

  // 1. Build the extension and the suite (--no-build: use dist/ as it is, for working on the runner).
  if (!process.argv.includes('--no-build')) step(process.execPath, ['esbuild.mjs']);
  if (!process.env.SERVICE_HOOKS_INTEGRATION_SUITE && !process.argv.includes('--no-build')) {
    if (!existsSync(join(ROOT, 'test', 'integration', 'build.mjs'))) throw new Error('test/integration/build.mjs is missing: no integration suite to run');
    step(process.execPath, ['test/integration/build.mjs']);
  }
  if (!existsSync(SUITE)) throw new Error(`the compiled suite ${SUITE} is missing after the build`);

  // 2. code-server (installed on demand), a fresh data dir and a fresh writable workspace.
  ensureCodeServer();
  const scratch = mkdtempSync(join(tmpdir(), 'sh-integration-'));
  const workspace = join(scratch, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const serverLog = join(RESULTS, 'integration-code-server.log');
  const browserLog = join(RESULTS, 'integration-browser.log');
  writeFileSync(serverLog, '');
  writeFileSync(browserLog, '');
  process.env.SERVICE_HOOKS_TEST_REPORT = REPORT_JSON; // inherited by code-server's extension host
  // A test CA for the suite's TLS relay: the extension host (and the emulator in it) trusts it the
  // way a developer's machine trusts a company CA, through NODE_EXTRA_CA_CERTS.
  const certs = makeTestCerts(join(scratch, 'tls'));
  process.env.NODE_EXTRA_CA_CERTS = certs.caCert;
  process.env.SERVICE_HOOKS_TEST_TLS_DIR = certs.dir;

  let server;
  let browser;
  let timer;
  const cleanup = async () => {
    clearTimeout(timer);
    await browser?.close();
    await server?.stop();
    rmSync(scratch, { recursive: true, force: true });
  };
  const onSignal = async () => {
    await cleanup();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    server = await startCodeServer({ workspace, dataDir: join(scratch, 'cs'), port: 0, logFile: serverLog });
    log(`code-server ready at ${server.url} (${((Date.now() - t0) / 1000).toFixed(1)} s since start)`);
    browser = await openBrowser();
    const { page } = browser;
    page.on('console', (m) => appendFileSync(browserLog, `[${m.type()}] ${m.text()}\n`));
    page.on('pageerror', (e) => appendFileSync(browserLog, `[pageerror] ${e.message}\n`));

    const exit = new Promise((resolveExit) => {
      page.exposeFunction('codeAutomationExit', (code) => resolveExit({ code: Number(code) })).catch((e) => resolveExit({ error: e }));
      timer = setTimeout(() => resolveExit({ timeout: true }), TIMEOUT_MS);
    });
    const url = workbenchUrl(server, { folder: workspace, extensionDevelopmentPath: ROOT, extensionTestsPath: SUITE });
    log(`opening the workbench with the suite ${SUITE}`);
    await page.goto(url);
    const result = await exit;

    let code;
    if (result.timeout) {
      log(`TIMED OUT: the suite did not finish within ${TIMEOUT_MS / 1000} s (SERVICE_HOOKS_INTEGRATION_TIMEOUT_MS)`);
      code = 1;
    } else if (result.error) {
      throw result.error;
    } else {
      code = result.code;
    }
    const report = existsSync(REPORT_TXT) ? readFileSync(REPORT_TXT, 'utf8') : '';
    const json = existsSync(REPORT_JSON) ? JSON.parse(readFileSync(REPORT_JSON, 'utf8')) : undefined;
    process.stdout.write(`\n--- integration suite report (${REPORT_TXT}) ---\n${report || '(the suite wrote no report)\n'}`);
    if (!json) {
      log('the suite wrote no report: counting the run as failed');
      code = code || 1;
    } else if (json.passes === 0 || json.failures > 0 || !json.done) {
      code = code || 1;
    }
    if (code !== 0) {
      const shot = join(RESULTS, 'integration-failure.png');
      await page.screenshot({ path: shot }).catch(() => {});
      log(`failed: screenshot ${shot}; logs ${serverLog}, ${browserLog}`);
    }
    process.stdout.write(`integration: ${json?.passes ?? 0} passed, ${json?.failures ?? 0} failed\n`);
    log(`integration run took ${((Date.now() - t0) / 1000).toFixed(1)} s; exit ${code}`);
    return code;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`\nintegration: FAILED — ${err?.message ?? err}\n`);
    process.exit(1);
  },
);
