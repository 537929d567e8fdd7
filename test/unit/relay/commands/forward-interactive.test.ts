// Pins issue 38 item 5 (interactive): `service-hooks forward` on a terminal (driven by tmux,
// installed by the test when missing) shows a live list of the newest deliveries; ↓ selects,
// Enter shows headers and body, r replays, o opens the relay's page, q quits with the summary; on a dumb terminal it prints
// text; and a terminal that goes away does not stop forwarding. Real relay, forwarder and app.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { cli, post, relayProcesses, signed, spawnRelayWithData, startTarget, tempDir, type TargetApp } from '../support/helpers';
import { call } from '../support/publicHelpers';

const SECRET = 'interactive-secret-0123456789';

function ensureTmux(): void {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
  } catch {
    execFileSync('sh', ['-c', 'apt-get update -qq && apt-get install -y -qq tmux'], { stdio: 'ignore' });
  }
}

/** A tmux server of this test's own (its own socket), with one pane running `command`. */
class Tmux {
  readonly socket = `sh-forward-${process.pid}-${Math.random().toString(36).slice(2)}`;
  constructor(command: string, env: Record<string, string>) {
    const vars = Object.entries(env).map(([k, v]) => `${k}='${v}'`);
    this.tmux('-f', '/dev/null', 'new-session', '-d', '-x', '150', '-y', '30', '-s', 't', `exec env ${vars.join(' ')} ${command}`);
    this.tmux('set-option', '-t', 't', 'remain-on-exit', 'on');
  }
  tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }
  screen(): string {
    return this.tmux('capture-pane', '-p', '-t', 't');
  }
  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', 't', ...keys);
  }
  pid(): number {
    return Number(this.tmux('display-message', '-p', '-t', 't', '#{pane_pid}').trim());
  }
  /** Resolves once the screen matches `re` (asked again after each look; bounded). */
  async shows(re: RegExp): Promise<string> {
    let s = '';
    for (let look = 0; look < 3000; look++) {
      s = this.screen();
      if (re.test(s)) return s;
      await new Promise<void>((r) => setImmediate(r));
    }
    throw new Error(`the terminal never showed ${re}:\n${s}`);
  }
  kill(): void {
    try {
      execFileSync('tmux', ['-L', this.socket, 'kill-server'], { stdio: 'ignore' });
    } catch {
      // gone already
    }
  }
}

describe('service-hooks forward --output interactive (tmux, relay, forwarder and app as processes)', function () {
  this.timeout(180_000);
  const procs = relayProcesses();
  const apps: TargetApp[] = [];
  const terminals: Tmux[] = [];
  const pids: number[] = [];
  before(ensureTmux);
  afterEach(async () => {
    for (const t of terminals.splice(0)) t.kill();
    for (const p of pids.splice(0)) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // exited
      }
    }
    for (const a of apps.splice(0)) await a.close();
  });

  async function setUp(term: string) {
    const { relay, admin } = await spawnRelayWithData();
    procs.push(relay);
    const dev = (await call('POST', `${relay.url}/api/channels`, admin, { name: 'dev', secrets: [SECRET] })).json.token as string;
    const app = await startTarget();
    apps.push(app);
    const send = async (n: number) => {
      const body = JSON.stringify({ n });
      const r = await post(`${relay.url}/hooks/dev`, body, signed(SECRET, body, { 'x-service-event': 'push' }));
      return (r.json as { seq: number }).seq;
    };
    const command = `${process.execPath} ${await cli()} forward --relay ${relay.url} --token ${dev} --to ${app.url} --state ${tempDir()}/s.json`;
    const t = new Tmux(command, { TERM: term, XDG_STATE_HOME: tempDir(), BROWSER: 'true' });
    terminals.push(t);
    pids.push(t.pid());
    return { t, app, send };
  }

  it('a live list: ↓ selects, Enter shows headers and body, r replays, q quits with the summary', async () => {
    const { t, app, send } = await setUp('xterm-256color');
    await t.shows(/connected \(relay at seq \d+\)/);
    await t.shows(/↑↓ select · Enter headers and body · r replay · o open on the relay · q quit/);
    const first = await send(1);
    const second = await send(2);
    await t.shows(new RegExp(`› #${second} dev push → 200[^]*#${first} dev push → 200`));
    t.keys('Down');
    await t.shows(new RegExp(`› #${first} dev push → 200`));
    t.keys('Enter');
    await t.shows(/^x-service-event: push\s*$[^]*^\{"n":1\}/m); // a header a line, not one line of \n escapes
    t.keys('Escape');
    await t.shows(/› #1 dev push/);
    t.keys('r');
    await app.waitFor(3);
    assert.equal(app.received[2]!.body.toString(), '{"n":1}');
    await t.shows(new RegExp(`#${first} dev push → 200 [\\d.]+ ms \\(replay\\)`));
    t.keys('o'); // BROWSER=true: nothing is opened for real
    await t.shows(new RegExp(`opened http://127\\.0\\.0\\.1:\\d+/ \\(#${first}\\)`));
    t.keys('q');
    await t.shows(/forward: 3 posted, 3 2xx, 0 refused, 0 retrying, 0 skipped by the filter/);
  });

  it('a dumb terminal gets text lines', async () => {
    const { t, send } = await setUp('dumb');
    // Text lines: each after the time and the relay address (issue 42 item 7).
    await t.shows(/^\d{4}-[\d-]+T[\d:.]+Z 127\.0\.0\.1:\d+ forward: channel dev: connected \(relay at seq \d+\)/m);
    const seq = await send(1);
    const screen = await t.shows(new RegExp(`^\\d{4}-[\\d-]+T[\\d:.]+Z 127\\.0\\.0\\.1:\\d+ #${seq} dev push → 200`, 'm'));
    assert.doesNotMatch(screen, /↑↓ select/);
  });

  it('a terminal that goes away does not stop forwarding', async () => {
    const { t, app, send } = await setUp('xterm-256color');
    await t.shows(/connected \(relay at seq \d+\)/);
    t.kill(); // SIGHUP, and the terminal is gone
    await send(1);
    await send(2);
    await app.waitFor(2);
  });
});
