#!/usr/bin/env node
// @ts-check
// `npm start`: the whole loop on one machine, from a fresh clone.
//   npm ci (when node_modules is missing) → build → package the VSIX → code-server (fetched on demand
//   into .cache/) with the VSIX installed → a sample receiver app that verifies signatures → the relay
//   (forwarding to it) → the service emulator with demo data (org acme, repo widgets, a webhook to the
//   relay and one to an endpoint that always fails) → a sample workspace whose git remote points at
//   the emulator and whose workflow has names to port.
// Prints the URL to open and the token to sign in with. Ctrl-C stops everything.
//
// The functions are exported for the UI end-to-end tests (scripts/run-e2e.mjs), which run the same
// set-up on free ports in a fresh folder.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT, ensureCodeServer, ensureSystemPackages, installVsix, log, prepareDataDir, startCodeServer, stopChild } from './lib/code-server.mjs';
import { freePort } from './lib/freePort.mjs';

export const DEMO_DIR = join(ROOT, '.cache', 'demo');
const DEFAULTS = JSON.parse(readFileSync(join(ROOT, 'src', 'core', 'defaults.json'), 'utf8')); // src/core/defaults.ts reads the same file
export const DEMO_SECRET = DEFAULTS.demoSecret;
export const CLI = join(ROOT, 'dist', 'cli.js');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
export const EXTENSION_ID = `${PKG.publisher}.${PKG.name}`.toLowerCase();

function runStep(cmd, args, opts = {}) {
  log(`$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  if (r.error) throw new Error(`${cmd} could not start: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})`);
}

/** A fresh clone has no node_modules: install the locked dependencies first. */
export function ensureDependencies() {
  const needed = ['esbuild', 'vsce'].map((b) => join(ROOT, 'node_modules', '.bin', b));
  if (needed.every((p) => existsSync(p))) return;
  log('node_modules is missing or incomplete: npm ci (once)…');
  runStep(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['ci', '--no-audit', '--no-fund']);
}

export function build() {
  runStep(process.execPath, ['esbuild.mjs']);
}

/** vsce rewrites the README's relative links (docs/*.png) against the repository, but detects only
 *  GitHub/GitLab by itself: for another host, derive the base URLs from package.json's repository. */
export function readmeLinkArgs(pkg = PKG) {
  const url = (typeof pkg.repository === 'string' ? pkg.repository : (pkg.repository?.url ?? '')).replace(/^git\+/, '').replace(/\.git$/, '');
  if (!url || /github\.com|gitlab\.com/.test(url)) return [];
  return ['--baseContentUrl', `${url}/blob/HEAD/`, '--baseImagesUrl', `${url}/raw/HEAD/`];
}

/** vsce package --no-dependencies (offline). Returns the .vsix path. */
export function packageVsix(out = join(ROOT, 'dist', 'service-hooks.vsix')) {
  mkdirSync(join(out, '..'), { recursive: true });
  const vsce = join(ROOT, 'node_modules', '.bin', 'vsce');
  if (!existsSync(vsce)) throw new Error('node_modules/.bin/vsce is missing: run npm ci first');
  runStep(vsce, ['package', '--no-dependencies', ...readmeLinkArgs(), '--out', out]);
  log(`VSIX ${out}: ${(statSync(out).size / 1024).toFixed(0)} KiB`);
  return out;
}

export const WORKFLOW = `# A workflow written for another service: the editor flags the names to port and offers fixes.
name: CI
on:
  push:
    branches: [main]
  pull_request:
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Test
        run: npm ci && npm test
      - name: Comment on the pull request
        if: github.event_name == 'pull_request'
        uses: actions/github-script@v7
        with:
          github-token: \${{ secrets.GITHUB_TOKEN }}
          script: |
            console.log('PR', \${{ github.event.pull_request.number }})
      - name: Code scanning
        uses: github/codeql-action/analyze@v3
        env:
          GITHUB_TOKEN: \${{ secrets.GITHUB_TOKEN }}
`;

/** Reads a JSON settings file ({} when missing or not JSON), sets `values`, writes it back. */
export function mergeJsonFile(file, values) {
  let current = {};
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) current = parsed;
  } catch {
    // missing or not JSON: start from nothing
  }
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, JSON.stringify({ ...current, ...values }, null, 2) + '\n');
}

/** The sample workspace: git repo with a remote on the emulator, a workflow to port, settings
 *  (the relay port — never the token; the base URL and forward URL are machine settings, see startDemo).
 *  Created once; later runs update only what it owns (the workflow, the README, its settings keys,
 *  the remote) and keep every file the user added. */
export function prepareWorkspace(dir, { emulatorUrl, relayPort }) {
  const fresh = !existsSync(join(dir, '.git'));
  mkdirSync(join(dir, '.github', 'workflows'), { recursive: true });
  writeFileSync(join(dir, '.github', 'workflows', 'ci.yml'), WORKFLOW);
  writeFileSync(join(dir, 'README.md'), '# widgets\n\nA sample repository for the service-hooks demo.\n');
  mergeJsonFile(join(dir, '.vscode', 'settings.json'), {
    'serviceHooks.relay.port': relayPort,
    'git.openRepositoryInParentFolders': 'never',
  });
  const git = (...args) => runStep('git', args, { cwd: dir, stdio: 'ignore' });
  const remote = `${emulatorUrl}/acme/widgets.git`;
  if (fresh) {
    git('init', '-q', '-b', 'main');
    git('remote', 'add', 'origin', remote);
    git('-c', 'user.name=demo', '-c', 'user.email=demo@example.invalid', 'add', '.');
    git('-c', 'user.name=demo', '-c', 'user.email=demo@example.invalid', 'commit', '-q', '-m', 'sample workspace');
  } else {
    git('remote', 'set-url', 'origin', remote);
  }
  return dir;
}

/**
 * A long-running child (own process group) whose output lines are prefixed and sent to `sink`,
 * with every string in `redact` (strings, or functions read at each chunk) replaced by ***. Resolves once `ready()` resolves true.
 * @param {string} name
 * @param {string[]} args
 * @param {{ sink: (line: string) => void, redact?: (string | (() => string))[], rewrite?: (line: string) => string, ready: (output: string) => Promise<boolean>, timeoutMs?: number, cwd?: string, env?: Record<string, string> }} options
 */
export async function startChild(name, args, { sink, redact = [], rewrite = (l) => l, ready, timeoutMs = 30_000, cwd = ROOT, env = {} }) {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const out = [];
  const onData = (buf) => {
    let text = buf.toString();
    for (const r of redact.map((x) => (typeof x === 'function' ? x() : x)).filter(Boolean)) text = text.split(r).join('***');
    out.push(text);
    for (const line of text.split('\n')) if (line.trim()) sink(`[${name}] ${rewrite(line)}`);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  let exited;
  child.on('exit', (code, signal) => (exited = code ?? signal));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited !== undefined) throw new Error(`${name} exited (${exited}) during start:\n${out.join('').slice(-2000)}`);
    if (await ready(out.join('')).catch(() => false)) break;
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`${name} was not ready within ${timeoutMs / 1000} s:\n${out.join('').slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 150)); // polling a server's start
  }
  return { child, output: () => out.join(''), stop: () => stopChild(child) };
}

/** The extension's relay data folder inside a code-server data dir (context.globalStorageUri/relay):
 *  running the demo relay there lets the editor's Relay view attach to it (it reads `<data>/token`). */
export function editorRelayDataDir(codeServerDir) {
  return join(codeServerDir, 'data', 'User', 'globalStorage', EXTENSION_ID, 'relay');
}

/** The emulator token: kept in `<dir>/emulator-token` (mode 0600) so an editor that signed in stays
 *  signed in across `npm start` runs; `fresh` makes a new one. */
function demoToken(dir, fresh) {
  const file = join(dir, 'emulator-token');
  if (!fresh && existsSync(file)) {
    const t = readFileSync(file, 'utf8').trim();
    if (t) return t;
  }
  let t;
  do
    t = randomBytes(24).toString('base64url'); // never starting with '-', which `--token -…` would refuse
  while (t.startsWith('-'));
  writeFileSync(file, t + '\n', { mode: 0o600 });
  return t;
}

/**
 * The demo set-up: receiver app → relay → emulator (--demo, its relay webhook on the relay's actual
 * port) → sample workspace → code-server with the VSIX installed. `fixedPorts`: the documented
 * 8787/8788 (npm start); otherwise free ports from the OS (tests). Emulator state is fresh every run.
 * Returns the URLs, the token, and stop() (stops everything in reverse order; idempotent).
 * `signal` (AbortSignal): aborted during start-up, it stops what already runs and throws.
 * `listDeliveries`: the emulator also serves its deliveries listing (`emulate --list-deliveries`), an
 * extension the real service does not have; off by default, so `npm start` is the service as it is.
 * @param {{ dir?: string, fixedPorts?: boolean, codeServerPort?: number, sink?: (line: string) => void, vsix?: string, freshToken?: boolean, signal?: AbortSignal, listDeliveries?: boolean }} [options]
 */
export async function startDemo({
  dir = DEMO_DIR,
  fixedPorts = true,
  codeServerPort = 0,
  sink = (l) => void process.stdout.write(l + '\n'),
  vsix,
  freshToken = !fixedPorts,
  signal,
  listDeliveries = false,
} = {}) {
  ensureSystemPackages();
  ensureCodeServer();
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first`);
  mkdirSync(dir, { recursive: true });
  const stops = [];
  let stopping;
  // Idempotent, and concurrent callers all wait for the same run (no caller exits half-way).
  const stopAll = () =>
    (stopping ??= (async () => {
      for (const s of stops.splice(0).reverse()) await s().catch(() => {});
    })());
  // Interrupted (Ctrl-C, a test run's time limit): stop what already runs at once; whatever
  // finishes starting afterwards is stopped as soon as it is up. Nothing is left behind.
  signal?.addEventListener('abort', () => void stopAll(), { once: true });
  const started = async (stop) => {
    if (signal?.aborted) {
      await stop().catch(() => {});
      throw new Error('interrupted during start-up');
    }
    stops.push(stop);
  };
  try {
    const emulatorPort = fixedPorts ? DEFAULTS.servicePort : await freePort();
    const relayPort = fixedPorts ? DEFAULTS.relayPort : await freePort();
    if (fixedPorts) await checkDemoPorts();
    const token = demoToken(dir, freshToken);
    const emulatorUrl = `http://127.0.0.1:${emulatorPort}`;
    const relayUrl = `http://127.0.0.1:${relayPort}`;
    const csDir = join(dir, 'code-server');
    const relayData = editorRelayDataDir(csDir);
    mkdirSync(relayData, { recursive: true });
    const relayTokenFile = join(relayData, 'token');
    const relayToken = () => (existsSync(relayTokenFile) ? readFileSync(relayTokenFile, 'utf8').trim() : '');

    // The sample app first, so the relay has somewhere to forward.
    const receiver = await startChild('receiver', [join(ROOT, 'scripts', 'demo', 'receiver.mjs'), '--port', '0', '--secret', DEMO_SECRET], {
      sink,
      ready: async (output) => /receiver listening on \S+/.test(output),
    });
    await started(receiver.stop);
    const appUrl = /receiver listening on (\S+)/.exec(receiver.output())?.[1] ?? '';

    // The relay before the emulator: the emulator's demo push goes to it at start-up.
    const relay = await startChild(
      'relay',
      [CLI, 'relay', '--port', String(relayPort), '--host', '127.0.0.1', '--secret', DEMO_SECRET, '--forward', appUrl, '--data', relayData, '--ready', 'json'],
      {
        sink,
        redact: [relayToken],
        rewrite: relayTokenLine,
        // Our child's own line first: a stale relay on the same port must not pass for it.
        ready: async (output) => relayReady(output)?.url === relayUrl && (await fetch(`${relayUrl}/healthz`)).ok,
      },
    );
    await started(relay.stop);

    const statePath = join(dir, 'emulator-state.json');
    rmSync(statePath, { force: true });
    const emulator = await startChild(
      'emulator',
      [
        CLI,
        'emulate',
        '--demo',
        '--port',
        String(emulatorPort),
        '--host',
        '127.0.0.1',
        '--state',
        statePath,
        '--demo-relay-url',
        `${relayUrl}/hooks/default`,
        ...(listDeliveries ? ['--list-deliveries'] : []),
      ],
      {
        sink,
        env: { SERVICE_HOOKS_EMULATOR_TOKEN: token }, // not on the command line, where `ps` shows it
        redact: [token],
        ready: async (output) => {
          if (!output.includes(`emulator listening on ${emulatorUrl}`)) return false; // ours, not a leftover
          const res = await fetch(`${emulatorUrl}/api/v1/repos/acme/widgets/webhooks`, { headers: { authorization: `Bearer ${token}` } });
          return res.ok;
        },
      },
    );
    await started(emulator.stop);

    const workspace = prepareWorkspace(join(dir, 'workspace'), { emulatorUrl, relayPort });

    if (vsix) installVsix(vsix, csDir);
    // serviceHooks.baseUrl is a machine setting (a workspace cannot redirect the token): the editor's user settings.
    // So is serviceHooks.relay.forwardUrl (a workspace cannot redirect relayed deliveries).
    const userSettings = join(prepareDataDir(csDir).userDataDir, 'User', 'settings.json');
    mergeJsonFile(userSettings, { 'serviceHooks.baseUrl': emulatorUrl, 'serviceHooks.relay.forwardUrl': appUrl });
    const logFile = join(dir, 'code-server.log');
    writeFileSync(logFile, '');
    const cs = await startCodeServer({ workspace, dataDir: csDir, port: codeServerPort, logFile });
    await started(cs.stop);

    return {
      token,
      workspace,
      emulatorUrl,
      relayUrl,
      relayPort,
      relayData,
      relayToken,
      appUrl,
      receiver,
      relay,
      emulator,
      codeServer: cs,
      codeServerLog: logFile,
      userSettings,
      openUrl: `${cs.url}/?folder=${encodeURIComponent(workspace)}`,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

const starting = new AbortController();

async function main() {
  const t0 = Date.now();
  let demo;
  let stopping = false;
  const stop = async (signal) => {
    if (stopping) return;
    stopping = true;
    if (!demo) {
      starting.abort(); // startDemo stops what it started and throws; main's catch exits
      process.stdout.write(`\n${signal}: stopping…\n`);
      return;
    }
    process.stdout.write(`\n${signal}: stopping code-server, emulator, relay and receiver…\n`);
    await demo?.stop();
    process.stdout.write('stopped.\n');
    process.exit(0);
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => void stop(sig));
  watchParent(() => void stop('npm ended'));
  // Written to after npm ended, a closed pipe must not kill this process before it has stopped the rest.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

  await checkDemoPorts();
  ensureDependencies();
  build();
  const vsix = packageVsix();
  demo = await startDemo({ vsix, codeServerPort: Number(process.env.PORT) || (await portOr(8080)), signal: starting.signal });
  // A server of the demo that dies leaves an editor that cannot work: say which, stop the rest, exit 1.
  watchChildren(
    [
      ['emulator', demo.emulator.child],
      ['relay', demo.relay.child],
      ['receiver', demo.receiver.child],
      ['code-server', demo.codeServer.process],
    ],
    (name, how) => {
      if (stopping) return;
      stopping = true;
      process.stderr.write(`\n${name} stopped unexpectedly (${how}); the demo cannot work without it: stopping the others. Run npm start again.\n`);
      void demo.stop().then(() => process.exit(1));
    },
  );
  process.stdout.write(banner(demo, (Date.now() - t0) / 1000));
}

/**
 * What npm start prints once the demo runs. The Page line names the relay's token file (relative
 * to the repository, as the emulator token's is), never the token itself.
 * @param {{ openUrl: string, token: string, emulatorUrl: string, relayUrl: string, relayData: string, appUrl: string, workspace: string, codeServerLog: string }} demo
 * @param {number} seconds
 */
export function banner(demo, seconds) {
  const bar = '─'.repeat(76);
  return (
    `\n${bar}\n` +
    `  Service Hooks demo is running (ready in ${seconds.toFixed(0)} s)\n\n` +
    `  Open:      ${demo.openUrl}\n` +
    `  Sign in:   F1 → "Service Webhooks: Sign In", paste this emulator token:\n` +
    `             ${demo.token}\n` +
    `             (kept in ${relative(ROOT, join(DEMO_DIR, 'emulator-token'))}; the editor stores it in SecretStorage, never in settings)\n\n` +
    `  Emulator:  ${demo.emulatorUrl}   (org acme, repo widgets: a webhook to the relay, one to a failing endpoint)\n` +
    `  Relay:     ${demo.relayUrl}/hooks/default   (secret ${DEMO_SECRET}; the editor's Relay view attaches to it)\n` +
    `  Page:      ${demo.relayUrl}/   (the relay's deliveries in a browser; sign in with the relay token in\n` +
    `             ${relative(ROOT, join(demo.relayData, 'token'))})\n` +
    `  App:       ${demo.appUrl}   (scripts/demo/receiver.mjs verifies signatures)\n` +
    `  Workspace: ${demo.workspace}   (git remote on the emulator; .github/workflows/ci.yml to port)\n` +
    `  Logs:      ${relative(ROOT, demo.codeServerLog)} (code-server); the others below\n\n` +
    `  Ctrl-C (or ending npm) stops everything.\n${bar}\n\n`
  );
}

/**
 * Calls `onDeath(name, how)` for the first of `children` ([name, ChildProcess] pairs; undefined ones
 * skipped) that exits, with its exit code or signal in words. The caller ignores it while it stops them itself.
 * @param {[string, import('node:child_process').ChildProcess | undefined][]} children
 * @param {(name: string, how: string) => void} onDeath
 */
export function watchChildren(children, onDeath) {
  let fired = false;
  for (const [name, child] of children) {
    if (!child) continue;
    child.once('exit', (code, signal) => {
      if (fired) return;
      fired = true;
      onDeath(name, code !== null ? `exit code ${code}` : `signal ${signal}`);
    });
  }
}

/** The documented demo ports must be free; checked before the build, so a demo still running is
 *  reported in a second instead of after a minute of building. */
export async function checkDemoPorts(
  ports = [
    [8787, 'emulator'],
    [8788, 'relay'],
  ],
) {
  for (const [port, what] of ports) {
    if (!(await portIsFree(Number(port)))) {
      throw new Error(
        `port ${port} (the demo ${what}) is already in use, perhaps by a demo still running: stop it (\`ss -ltnp 'sport = :${port}'\` shows the process) and run npm start again`,
      );
    }
  }
}

/**
 * Calls `onGone` once the process that started this one has ended. A stop button (an IDE's) sends
 * SIGTERM to npm, which ends without passing it on: this process would be left running, and with
 * it every server it started in their own process groups. So the parent is watched (its pid turns
 * into another when it ends: 1 or a subreaper).
 */
export function watchParent(onGone, { everyMs = 1000, ppid = () => process.ppid } = {}) {
  const parent = ppid();
  const timer = setInterval(() => {
    if (ppid() === parent) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  return () => clearInterval(timer);
}

/** The relay's `--ready json` line in its output so far (the format: src/core/relay/ready.ts), or undefined. */
export function relayReady(output) {
  for (const line of output.split('\n').slice(0, -1)) {
    if (!line.startsWith('{"ready":"relay"')) continue;
    try {
      return JSON.parse(line);
    } catch {
      // not the ready line
    }
  }
  return undefined;
}

/** The relay's token line names where the token is, never the token: `relay token: in PATH (not shown)`. */
export function relayTokenLine(line) {
  const m = /^relay token \(shown once; stored in (.*)\): \S+\s*$/.exec(line);
  return m ? `relay token: in ${m[1]} (not shown here)` : line;
}

/** true when nothing listens on 127.0.0.1:port. */
async function portIsFree(port) {
  const { createServer } = await import('node:net');
  return new Promise((resolveFree) => {
    const s = createServer();
    s.once('error', () => resolveFree(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolveFree(true)));
  });
}

async function portOr(preferred) {
  const { createServer } = await import('node:net');
  return new Promise((resolvePort) => {
    const s = createServer();
    s.once('error', () => freePort().then(resolvePort));
    s.listen(preferred, '127.0.0.1', () => s.close(() => resolvePort(preferred)));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    if (starting.signal.aborted) {
      process.stdout.write('stopped (interrupted during start-up).\n');
      process.exit(130);
    }
    process.stderr.write(`\nnpm start: FAILED — ${err?.message ?? err}\n`);
    process.exit(1);
  });
}
