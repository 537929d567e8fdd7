// npm start's own helpers: it stops when npm ends (an IDE's stop button), the relay token line,
// and the sample workspace keeps what the user added.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(__dirname, '..', '..', '..');
const START = join(ROOT, 'scripts', 'start.mjs');
type StartModule = {
  relayTokenLine(line: string): string;
  watchChildren(children: [string, import('node:child_process').ChildProcess | undefined][], onDeath: (name: string, how: string) => void): void;
  watchParent(onGone: () => void, o?: { everyMs?: number; ppid?: () => number }): () => void;
  prepareWorkspace(dir: string, o: { emulatorUrl: string; relayPort: number }): string;
  banner(
    demo: {
      openUrl: string;
      token: string;
      emulatorUrl: string;
      relayUrl: string;
      relayData: string;
      appUrl: string;
      workspace: string;
      codeServerLog: string;
    },
    seconds: number,
  ): string;
};
const load = () => import(pathToFileURL(START).href) as Promise<StartModule>;

describe('npm start helpers', () => {
  it('the relay token line says where the token is, on every platform, never the token', async () => {
    const { relayTokenLine } = await load();
    assert.equal(
      relayTokenLine('relay token (shown once; stored in /home/u/.service-hooks/relay/token): abc123'),
      'relay token: in /home/u/.service-hooks/relay/token (not shown here)',
    );
    assert.equal(
      relayTokenLine('relay token (shown once; stored in c:\\Users\\u\\relay\\token): ***'),
      'relay token: in c:\\Users\\u\\relay\\token (not shown here)',
    );
    assert.equal(relayTokenLine('relay listening on http://127.0.0.1:8788'), 'relay listening on http://127.0.0.1:8788');
  });

  it("the banner's Page line names the relay's token file (issue 36 item 20), never a token", async () => {
    const { banner } = await load();
    const relayData = join(ROOT, '.cache', 'demo', 'code-server', 'relay');
    const text = banner(
      {
        openUrl: 'http://127.0.0.1:1/',
        token: 'emu-token',
        emulatorUrl: 'http://127.0.0.1:2',
        relayUrl: 'http://127.0.0.1:3',
        relayData,
        appUrl: 'http://127.0.0.1:4/',
        workspace: '/w',
        codeServerLog: join(ROOT, 'cs.log'),
      },
      3,
    );
    const page = text.slice(text.indexOf('  Page:'), text.indexOf('  App:'));
    assert.match(page, /sign in with the relay token in\s+\.cache\/demo\/code-server\/relay\/token\)/);
  });

  it('watchChildren names the demo server that died and how (npm start then stops the rest and exits 1)', async () => {
    const { watchChildren } = await load();
    const alive = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const dying = spawn(process.execPath, ['-e', 'process.exit(3)'], { stdio: 'ignore' });
    try {
      const death = await new Promise<[string, string]>((resolve) =>
        watchChildren(
          [
            ['relay', alive],
            ['emulator', dying],
            ['none', undefined],
          ],
          (name: string, how: string) => resolve([name, how]),
        ),
      );
      assert.deepEqual(death, ['emulator', 'exit code 3']);
    } finally {
      alive.kill('SIGKILL');
    }
  });

  it('watchParent fires once the parent pid changes', async () => {
    const { watchParent } = await load();
    let pid = 100;
    const gone = new Promise<void>((resolve) => watchParent(resolve, { everyMs: 1, ppid: () => pid }));
    pid = 1;
    await gone;
  });

  it("a real process: when its parent (npm's sh) is killed, it notices and stops", async () => {
    const child = `import(${JSON.stringify(pathToFileURL(START).href)}).then((m) => { m.watchParent(() => { process.stdout.write('stopping\\n'); process.exit(0); }, { everyMs: 20 }); process.stdout.write('ready\\n'); });`;
    // `; :` keeps sh as the parent (it would otherwise exec node in its place).
    const sh = spawn('sh', ['-c', `"${process.execPath}" -e '${child.replace(/'/g, `'\\''`)}'; :`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const saw = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => out.includes(text) && resolve();
        sh.stdout!.on('data', (b: Buffer) => ((out += b.toString()), check()));
        check();
      });
    await saw('ready');
    sh.kill('SIGKILL'); // what npm does to its sh on SIGTERM: the node child is not told
    await saw('stopping');
  });

  it('the sample workspace is created once; later runs keep the files and settings the user added', async () => {
    const { prepareWorkspace } = await load();
    const dir = join(mkdtempSync(join(tmpdir(), 'sh-ws-')), 'workspace');
    try {
      prepareWorkspace(dir, { emulatorUrl: 'http://127.0.0.1:1', relayPort: 2 });
      writeFileSync(join(dir, 'notes.md'), 'mine\n');
      const settingsFile = join(dir, '.vscode', 'settings.json');
      writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(readFileSync(settingsFile, 'utf8')), 'editor.fontSize': 15 }));
      prepareWorkspace(dir, { emulatorUrl: 'http://127.0.0.1:4', relayPort: 5 });
      assert.equal(readFileSync(join(dir, 'notes.md'), 'utf8'), 'mine\n');
      const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
      assert.equal(settings['editor.fontSize'], 15, "the user's setting is kept");
      assert.equal(settings['serviceHooks.relay.port'], 5, 'its own settings are updated');
      assert.equal(settings['serviceHooks.baseUrl'], undefined, 'the base URL is a machine setting: not in the workspace');
      assert.equal(settings['serviceHooks.relay.forwardUrl'], undefined, 'the forward URL is a machine setting: not in the workspace');
      assert.match(readFileSync(join(dir, '.git', 'config'), 'utf8'), /url = http:\/\/127\.0\.0\.1:4\/acme\/widgets\.git/);
      assert.ok(existsSync(join(dir, '.github', 'workflows', 'ci.yml')));
    } finally {
      rmSync(join(dir, '..'), { recursive: true, force: true });
    }
  });
});
