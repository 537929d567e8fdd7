#!/usr/bin/env node
// @ts-check
// `npm run test:e2e`: the UI end-to-end flows (test/e2e/flows.mjs) in headless Debian Chromium
// (playwright-core) against the `npm start` set-up — the packaged VSIX installed in code-server, the
// emulator with demo data, the relay, the receiver app and the sample workspace — on free ports, in
// a fresh folder. Prints one line per flow and `N passed, N failed`; exits 1 on any failure.
// Never skips: if code-server, Chromium or a server cannot be started, the run fails and says why.
//
// Screenshots: test-results/e2e/<name>.png (one per flow, and failure-<n>.png on failure).
// Logs: test-results/e2e/{servers,code-server,browser}.log.
//
//   node scripts/run-e2e.mjs [--no-build] [--keep] [--grep TEXT] [--update-docs]
//   --keep: leave the scratch folder for inspection; --grep: run only the flows whose name contains
//   TEXT (for working on one flow; repeat it for several, e.g. a sign-in flow first; the summary says
//   how many were left out); --update-docs: after a
//   fully passing run, copy the screenshots of README.md and docs/*.md (DOC_SHOTS) into docs/.
// Env: SERVICE_HOOKS_E2E_TIMEOUT_MS (default 360000) — hard limit for the whole run;
//      SERVICE_HOOKS_E2E_FLOW_TIMEOUT_MS (default 90000) — limit per flow (a flow's `slow` factor multiplies it).
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, openBrowser } from './lib/code-server.mjs';
import { build, packageVsix, startDemo } from './start.mjs';
import { makeTestCerts } from './lib/test-certs.mjs';
import { Workbench } from '../test/e2e/workbench.mjs';
import { emulatorApi, flows } from '../test/e2e/flows.mjs';

const RESULTS = join(ROOT, 'test-results', 'e2e');
/** test-results/e2e/<key>.png → docs/<value>.png with --update-docs */
const DOC_SHOTS = {
  deliveries: 'tree',
  retry: 'retry',
  quickfix: 'quickfix',
  'add-webhook': 'add-webhook',
  forward: 'forward',
  'restricted-mode': 'restricted-mode',
};
const TIMEOUT_MS = Number(process.env.SERVICE_HOOKS_E2E_TIMEOUT_MS ?? 360_000);
const FLOW_TIMEOUT_MS = Number(process.env.SERVICE_HOOKS_E2E_FLOW_TIMEOUT_MS ?? 90_000);
const args = process.argv.slice(2);
const greps = args.flatMap((a, i) => (a === '--grep' ? [args[i + 1] ?? ''] : []));
const grep = greps.length > 0 ? greps.join(' | ') : undefined;
const selected = greps.length === 0 ? flows : flows.filter((f) => greps.some((g) => f.name.includes(g)));

const t0 = Date.now();
const secs = (t = t0) => ((Date.now() - t) / 1000).toFixed(1);
const say = (line) => process.stdout.write(line + '\n');

let demo;
let browser;
const aborter = new AbortController(); // the hard limit or a signal: startDemo stops what it started
const results = [];
let scratch;
let cleaning;
let finished = false;
/** Idempotent; concurrent callers wait for the same run. */
function cleanup() {
  return (cleaning ??= (async () => {
    await browser?.close().catch(() => {});
    await demo?.stop().catch(() => {});
    if (scratch && !args.includes('--keep')) rmSync(scratch, { recursive: true, force: true });
  })());
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms / 1000} s`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

async function main() {
  rmSync(RESULTS, { recursive: true, force: true });
  mkdirSync(RESULTS, { recursive: true });
  const serversLog = join(RESULTS, 'servers.log');
  const browserLog = join(RESULTS, 'browser.log');
  writeFileSync(serversLog, '');
  writeFileSync(browserLog, '');

  let vsix = join(ROOT, 'dist', 'service-hooks.vsix');
  if (!args.includes('--no-build')) {
    build();
    vsix = packageVsix(vsix);
  }
  if (!existsSync(vsix)) throw new Error(`${vsix} is missing (run without --no-build)`);

  scratch = mkdtempSync(join(tmpdir(), 'sh-e2e-'));
  const tStart = Date.now();
  // The flows below check deliveries through the emulator's listing (--list-deliveries); the
  // documented-only mode (npm start's) is covered by the in-editor suite and the relay-sourced tree.
  // A test CA for the TLS relay of the documented-service flow: code-server's extension host (and
  // the servers the flows start) trust it as a developer's machine trusts a company CA.
  const tls = makeTestCerts(join(scratch, 'tls'));
  process.env.NODE_EXTRA_CA_CERTS = tls.caCert;
  demo = await startDemo({
    dir: scratch,
    fixedPorts: false,
    vsix,
    listDeliveries: true,
    signal: aborter.signal,
    sink: (l) => appendFileSync(serversLog, l + '\n'),
  });
  say(`e2e: set-up ready in ${secs(tStart)} s (code-server ${demo.codeServer.url}, emulator ${demo.emulatorUrl}, relay ${demo.relayUrl})`);

  browser = await openBrowser({ viewport: { width: 1280, height: 800 } });
  const { page } = browser;
  page.on('console', (m) => appendFileSync(browserLog, `[${m.type()}] ${m.text()}\n`));
  page.on('pageerror', (e) => appendFileSync(browserLog, `[pageerror] ${e.message}\n`));
  const wb = new Workbench(page, { timeoutMs: 30_000 });
  const tOpen = Date.now();
  await wb.open(demo.openUrl, 'Service');
  say(`e2e: workbench open in ${secs(tOpen)} s`);

  const api = emulatorApi(demo);
  const shot = (name) => wb.screenshot(join(RESULTS, `${name}.png`));
  if (selected.length === 0) throw new Error(`--grep ${JSON.stringify(grep)} selects no flow`);
  for (const [i, flow] of selected.entries()) {
    const tf = Date.now();
    // A flow with `known` names a defect it shows and is run only with SERVICE_HOOKS_E2E_KNOWN=1: said loudly, never silently.
    if (flow.known && process.env.SERVICE_HOOKS_E2E_KNOWN !== '1') {
      say(`  ! NOT RUN (known defect, SERVICE_HOOKS_E2E_KNOWN=1 runs it): ${flow.name}\n      ${flow.known}`);
      continue;
    }
    try {
      await withTimeout(flow.run({ wb, page, demo, api, shot, tls }), FLOW_TIMEOUT_MS * (flow.slow ?? 1), `flow "${flow.name}"`);
      results.push({ name: flow.name, ok: true });
      say(`  ✓ ${flow.name} (${secs(tf)} s)`);
    } catch (err) {
      if (finished) break; // stopped from outside (abortRun has reported)
      const file = join(RESULTS, `failure-${i + 1}.png`);
      await page.screenshot({ path: file }).catch(() => {});
      results.push({ name: flow.name, ok: false, error: err });
      say(
        `  ✗ ${flow.name} (${secs(tf)} s)\n      ${String(err?.message ?? err)
          .split('\n')
          .join('\n      ')}\n      screenshot: ${file}`,
      );
      // Leave no widget open for the next flow (quick input, code action menu, peek view).
      for (let k = 0; k < 3; k++) await page.keyboard.press('Escape').catch(() => {});
      await wb.closeQuickInput().catch(() => {});
    }
  }
  if (finished) return 1;
  if (existsSync(demo.codeServerLog)) copyFileSync(demo.codeServerLog, join(RESULTS, 'code-server.log'));
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  const left = flows.length - selected.length;
  const known = selected.filter((f) => f.known && process.env.SERVICE_HOOKS_E2E_KNOWN !== '1').length;
  say(
    `\ne2e: ${passed} passed, ${failed} failed${known ? `, ${known} NOT RUN (known defects, named above)` : ''}${left ? ` (${left} not selected by --grep)` : ''} (${secs()} s; screenshots and logs in ${RESULTS})`,
  );
  const ok = failed === 0 && passed + known === selected.length;
  if (ok && args.includes('--update-docs')) {
    for (const [from, to] of Object.entries(DOC_SHOTS)) {
      if (existsSync(join(RESULTS, `${from}.png`))) copyFileSync(join(RESULTS, `${from}.png`), join(ROOT, 'docs', `${to}.png`));
    }
    say(
      `e2e: copied ${Object.values(DOC_SHOTS)
        .map((n) => `docs/${n}.png`)
        .join(', ')}`,
    );
  }
  return ok ? 0 : 1;
}

/** Ends the run early (hard limit, signal): reports, stops the set-up, waits (bounded) for main to
 *  unwind so nothing it started is left behind, then exits. */
async function abortRun(message, code) {
  if (finished) return;
  finished = true;
  say(message);
  const passed = results.filter((r) => r.ok).length;
  say(`e2e: ${passed} passed, ${selected.length - passed} failed`);
  aborter.abort();
  await browser?.close().catch(() => {}); // pending page waits reject at once
  await withTimeout(mainDone, 60_000, 'stopping').catch(() => {});
  await withTimeout(cleanup(), 20_000, 'cleanup').catch(() => {});
  process.exit(code);
}

const hardLimit = setTimeout(
  () =>
    void abortRun(`\ne2e: FAILED — the whole run exceeded its hard limit of ${TIMEOUT_MS / 1000} s (SERVICE_HOOKS_E2E_TIMEOUT_MS); stopping everything.`, 1),
  TIMEOUT_MS,
);
for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => void abortRun(`\ne2e: ${sig}: stopping everything`, 130));

const mainDone = main().catch((err) => {
  if (finished) return 1; // abortRun reported already
  say(`\ne2e: FAILED — ${err?.message ?? err}`);
  const passed = results.filter((r) => r.ok).length;
  say(`e2e: ${passed} passed, ${selected.length - passed} failed`);
  return 1;
});
mainDone.then(async (code) => {
  if (finished) return; // abortRun exits
  clearTimeout(hardLimit);
  await cleanup();
  process.exit(code);
});
