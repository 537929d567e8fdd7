// The standard @vscode/test-electron harness, for machines that can download VS Code (a developer's
// laptop, public CI):  npx tsx test/integration/runTest.ts
//
// It runs the same suite as `npm run test:integration` (test/integration/suite/index.ts, built by
// test/integration/build.mjs) in a downloaded desktop VS Code. On this project's own machines VS Code
// cannot be downloaded (only the npm registry and Debian's archive are reachable, and Debian has no
// VS Code package), so there `npm run test:integration` runs the suite inside code-server instead.
// When the download fails this script says so and exits 1: it never reports a pass it did not run.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runTests } from '@vscode/test-electron';
import { makeTestCerts } from '../../scripts/lib/test-certs.mjs';

const root = resolve(__dirname, '..', '..');

function build(): void {
  for (const script of ['esbuild.mjs', 'test/integration/build.mjs']) {
    const r = spawnSync(process.execPath, [script], { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`node ${script} failed`);
  }
}

function isDownloadFailure(err: unknown): boolean {
  const text = String((err as Error)?.stack ?? err);
  return /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|getaddrinfo|Failed to get JSON|Failed to download|update\.code\.visualstudio\.com/i.test(text);
}

async function main(): Promise<number> {
  build();
  const workspace = mkdtempSync(join(tmpdir(), 'sh-test-electron-ws-'));
  const report = join(root, 'test-results', 'integration-report.json');
  const certs = makeTestCerts(mkdtempSync(join(tmpdir(), 'sh-test-electron-tls-')));
  mkdirSync(join(root, 'test-results'), { recursive: true });
  try {
    return await runTests({
      version: '1.100.3', // the same VS Code as code-server 4.100.3 (engines.vscode ^1.100.0)
      extensionDevelopmentPath: root,
      extensionTestsPath: join(root, 'dist', 'test', 'integration', 'suite', 'index'),
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
      extensionTestsEnv: { SERVICE_HOOKS_TEST_REPORT: report, NODE_EXTRA_CA_CERTS: certs.caCert, SERVICE_HOOKS_TEST_TLS_DIR: certs.dir },
    });
  } catch (err) {
    if (isDownloadFailure(err)) {
      process.stderr.write(
        `\nrunTest: NOT RUN — VS Code could not be downloaded (${(err as Error).message?.split('\n')[0]}).\n` +
          'This machine reaches only the npm registry and Debian packages, and Debian has no VS Code.\n' +
          'Run the same suite inside code-server instead:  npm run test:integration\n',
      );
    } else {
      process.stderr.write(`\nrunTest: the suite failed or VS Code could not start: ${(err as Error)?.stack ?? err}\n`);
    }
    return 1;
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`runTest: ${(err as Error)?.stack ?? err}\n`);
    process.exit(1);
  },
);
