// @ts-check
// The real-editor harness: Debian packages, code-server installed on demand into an ignored cache
// folder (like @vscode/test-electron's .vscode-test/), starting it, installing a VSIX, and opening
// Chromium on it with playwright-core. Each step says here why it is done the way it is (the
// ripgrep pre-seed, npm's flags for root, the workbench URL's `payload`).
//
// Nothing here skips silently: a step that cannot be done throws an Error that says why.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './freePort.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CODE_SERVER_VERSION = '4.100.3'; // the last one whose engines accept Node 20 (VS Code 1.100.3)
export const CACHE = join(ROOT, '.cache');
export const CODE_SERVER_DIR = join(CACHE, 'code-server', CODE_SERVER_VERSION);
export const CODE_SERVER_BIN = join(CODE_SERVER_DIR, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
export const CHROMIUM = '/usr/bin/chromium';
const RIPGREP_VERSION = '1.15.11'; // @vscode/ripgrep's version inside code-server 4.100.3
const RIPGREP_ASSET = 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz';

export function log(msg) {
  process.stderr.write(`[harness] ${msg}\n`);
}

function run(cmd, args, opts = {}) {
  log(`$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.error) throw new Error(`${cmd} could not start: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

/** Debian's chromium (the browser), ripgrep (replaces a download in code-server's install),
 *  libkrb5-dev and pkg-config (a native module of code-server). Installed only when missing. */
export function ensureSystemPackages() {
  const needed = [
    ['chromium', CHROMIUM],
    ['ripgrep', '/usr/bin/rg'],
    ['libkrb5-dev', '/usr/include/gssapi/gssapi.h'],
    ['pkg-config', '/usr/bin/pkg-config'],
  ].filter(([, path]) => !existsSync(path));
  if (needed.length === 0) return;
  const names = needed.map(([n]) => n);
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new Error(
      `missing system packages: ${names.join(', ')}; installing them needs root. Run as root:\n` +
        `  apt-get update && apt-get install -y chromium libkrb5-dev ripgrep pkg-config`,
    );
  }
  const t0 = Date.now();
  log(`installing Debian packages ${names.join(', ')} (once; ~1 min)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-q'], { env });
  run('apt-get', ['install', '-y', '-q', '--no-install-recommends', 'chromium', 'libkrb5-dev', 'ripgrep', 'pkg-config'], { env });
  for (const [n, path] of needed) if (!existsSync(path)) throw new Error(`apt-get installed ${n} but ${path} is still missing`);
  log(`Debian packages installed in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

/** Installs code-server@4.100.3 into .cache/code-server/<version>/ unless already there. Returns the
 *  path of its entry script (run it with `node`). */
export function ensureCodeServer() {
  const stamp = join(CODE_SERVER_DIR, '.installed');
  if (existsSync(stamp) && existsSync(CODE_SERVER_BIN)) {
    const v = readFileSync(stamp, 'utf8').trim();
    if (v === CODE_SERVER_VERSION) return CODE_SERVER_BIN;
  }
  ensureSystemPackages();
  const t0 = Date.now();
  log(`installing code-server@${CODE_SERVER_VERSION} into ${CODE_SERVER_DIR} (once; ~1-2 min, ~300 MB)…`);
  try {
    installCodeServer(CODE_SERVER_DIR);
  } catch (err) {
    throw new Error(`could not install code-server@${CODE_SERVER_VERSION} (needed to run the extension in a real VS Code here): ${err.message}`, {
      cause: err,
    });
  }
  if (!existsSync(CODE_SERVER_BIN)) throw new Error(`code-server installed but ${CODE_SERVER_BIN} is missing`);
  writeFileSync(stamp, CODE_SERVER_VERSION + '\n');
  log(`code-server installed in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return CODE_SERVER_BIN;
}

/**
 * code-server@CODE_SERVER_VERSION into `dir`/node_modules. Its postinstall refuses to run as root
 * unless npm_config_unsafe_perm is set, a setting npm 7+ ignores and npm 11 warns about; so the
 * package is installed without scripts, the one dependency with an install script (argon2) is
 * rebuilt, and the postinstall's steps (vscode_install in postinstall.sh) are done here: the
 * dependencies of lib/vscode and lib/vscode/extensions, and its three symlinks.
 */
export function installCodeServer(dir) {
  if (Number(process.versions.node.split('.')[0]) !== 20) throw new Error(`code-server ${CODE_SERVER_VERSION} needs Node 20, this is ${process.version}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'code-server-cache', private: true }, null, 2) + '\n');
  // @vscode/ripgrep's postinstall downloads rg from a host that is not reachable here: pre-seed its
  // cache (in the TMPDIR the install uses) with Debian's rg.
  const tmp = join(dir, '..', 'tmp');
  const rgCache = join(tmp, `vscode-ripgrep-cache-${RIPGREP_VERSION}`);
  mkdirSync(rgCache, { recursive: true });
  run('tar', ['czf', join(rgCache, RIPGREP_ASSET), '-C', '/usr/bin', 'rg']);
  const env = {
    ...process.env,
    TMPDIR: tmp,
    npm_config_yes: 'true', // a postinstall runs `npx node-gyp`
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  run('npm', ['install', '--no-save', '--omit=dev', '--ignore-scripts', `code-server@${CODE_SERVER_VERSION}`], { cwd: dir, env });
  run('npm', ['rebuild', 'argon2'], { cwd: dir, env });
  const vscodeDir = join(dir, 'node_modules', 'code-server', 'lib', 'vscode');
  run('npm', ['install', '--omit=dev'], { cwd: vscodeDir, env });
  const link = (target, path) => {
    rmSync(path, { recursive: true, force: true });
    symlinkSync(target, path);
  };
  link('node_modules', join(vscodeDir, 'node_modules.asar'));
  link('code-linux.sh', join(vscodeDir, 'bin', 'remote-cli', 'code-server'));
  link('browser-linux.sh', join(vscodeDir, 'bin', 'helpers', 'browser.sh'));
  run('npm', ['install', '--omit=dev'], { cwd: join(vscodeDir, 'extensions'), env });
}

/** The per-instance folders: extensions, user data (with settings), XDG config/data. */
export function prepareDataDir(dir) {
  const d = {
    root: dir,
    extensionsDir: join(dir, 'ext'),
    userDataDir: join(dir, 'data'),
    xdgConfig: join(dir, 'xdg-config'),
    xdgData: join(dir, 'xdg-data'),
  };
  for (const p of Object.values(d)) mkdirSync(p, { recursive: true });
  const settings = join(d.userDataDir, 'User', 'settings.json');
  if (!existsSync(settings)) {
    mkdirSync(dirname(settings), { recursive: true });
    writeFileSync(
      settings,
      JSON.stringify(
        {
          'workbench.startupEditor': 'none',
          'workbench.tips.enabled': false,
          'extensions.autoCheckUpdates': false,
          'extensions.autoUpdate': false,
          'telemetry.telemetryLevel': 'off',
          'update.mode': 'none',
          'git.openRepositoryInParentFolders': 'never',
        },
        null,
        2,
      ) + '\n',
    );
  }
  return d;
}

function codeServerEnv(d) {
  return { ...process.env, XDG_CONFIG_HOME: d.xdgConfig, XDG_DATA_HOME: d.xdgData, XDG_CACHE_HOME: join(d.root, 'xdg-cache') };
}

function commonArgs(d) {
  return ['--extensions-dir', d.extensionsDir, '--user-data-dir', d.userDataDir];
}

/** code-server --install-extension <vsix> into the data dir. */
export function installVsix(vsixPath, dataDir) {
  const bin = ensureCodeServer();
  const d = prepareDataDir(dataDir);
  run(process.execPath, [bin, ...commonArgs(d), '--install-extension', resolve(vsixPath), '--force'], { env: codeServerEnv(d) });
}

/**
 * Starts code-server on 127.0.0.1 and waits for GET /healthz. `port: 0` (default) asks the OS for
 * a free one. Returns { url, port, process, stop() }; stop() kills it and its children.
 * `workspaceTrust: true` keeps VS Code's workspace trust on (a folder opened is untrusted until the
 * user trusts it: Restricted Mode); every other run turns it off.
 * @param {{ workspace?: string, dataDir?: string, port?: number, logFile?: string, timeoutMs?: number, workspaceTrust?: boolean }} [options]
 */
export async function startCodeServer({ workspace, dataDir, port = 0, logFile, timeoutMs = 60_000, workspaceTrust = false } = {}) {
  const bin = ensureCodeServer();
  const d = prepareDataDir(dataDir ?? mkdtempSync(join(tmpdir(), 'sh-cs-')));
  const chosen = port || (await freePort());
  const args = [
    bin,
    '--bind-addr',
    `127.0.0.1:${chosen}`,
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    ...(workspaceTrust ? [] : ['--disable-workspace-trust']),
    '--disable-getting-started-override',
    ...commonArgs(d),
  ];
  if (workspace) args.push(workspace);
  const { openSync } = await import('node:fs');
  const out = logFile ? openSync(logFile, 'a') : 'ignore';
  // detached: its own process group, so stop() ends its extension host and helpers too.
  const child = spawn(process.execPath, args, { env: codeServerEnv(d), stdio: ['ignore', out, out], detached: true });
  /** @type {{ exited?: { code: number | null, signal: string | null } }} */
  const state = {};
  child.on('exit', (code, signal) => (state.exited = { code, signal }));
  const url = `http://127.0.0.1:${chosen}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { exited } = state;
    if (exited) throw new Error(`code-server exited during start (${exited.code ?? exited.signal})${logFile ? `; see ${logFile}` : ''}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      killGroup(child);
      throw new Error(`code-server did not answer ${url}/healthz within ${timeoutMs / 1000} s`);
    }
    await new Promise((r) => setTimeout(r, 200)); // polling a server's start, not a test sleep
  }
  return {
    url,
    port: chosen,
    dirs: d,
    process: child,
    stop: () => stopChild(child),
  };
}

function killGroup(child, signal = 'SIGTERM') {
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* gone */
    }
  }
}

/** SIGTERM the child's process group, SIGKILL after 5 s; resolves when it has exited. */
export function stopChild(child, graceMs = 5000) {
  if (child.exitCode !== null || child.signalCode !== null) {
    killGroup(child, 'SIGKILL'); // its helpers may linger in the group
    return Promise.resolve();
  }
  return new Promise((/** @type {(v?: void) => void} */ done) => {
    const t = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(t);
      killGroup(child, 'SIGKILL');
      done();
    });
    killGroup(child, 'SIGTERM');
  });
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Headless Debian Chromium through playwright-core, in a fresh profile. Returns { context, page, close() }. */
export async function openBrowser({ viewport = { width: 1400, height: 900 } } = {}) {
  ensureSystemPackages();
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'sh-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: CHROMIUM_ARGS,
    // Chromium's crash database and caches go inside the temporary profile, not the home folder.
    env: { ...process.env, XDG_CONFIG_HOME: join(profile, 'xdg-config'), XDG_CACHE_HOME: join(profile, 'xdg-cache') },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * The workbench URL for a folder, with optional extension development/test paths: code-server reads
 * them from the `payload` query parameter (what `code --extensionDevelopmentPath` passes to a desktop
 * window), as `vscode-remote://<host><path>` URIs; a tests path is given without its `.js`.
 * @param {{ port: number, url: string }} server
 * @param {{ folder?: string, extensionDevelopmentPath?: string, extensionTestsPath?: string }} [paths]
 */
export function workbenchUrl(server, { folder, extensionDevelopmentPath, extensionTestsPath } = {}) {
  const host = `127.0.0.1:${server.port}`;
  const payload = [];
  if (extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', `vscode-remote://${host}${extensionDevelopmentPath}`]);
  if (extensionTestsPath) payload.push(['extensionTestsPath', `vscode-remote://${host}${extensionTestsPath.replace(/\.js$/, '')}`]);
  let url = `${server.url}/?folder=${encodeURIComponent(folder ?? '')}`;
  if (payload.length) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return url;
}
