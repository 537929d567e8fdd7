// The relay as the editor sees it: a child process it may own (Start/Stop Relay), the REST API,
// the live WebSocket subscription (resumed by seq) and a status bar item.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { RelayLiveList, type RelayDeliveryView, type RelayState, type RelayStatusView } from '../core/tree';
import { settings } from './config';
import { loadRelayClient } from './deps';
import { COMMANDS, CONTEXT } from './ids';
import { log } from './log';

export interface RelayDeliveryDetail extends RelayDeliveryView {
  headers: Record<string, string>;
  bodyBase64: string;
}

export class RelayHttpError extends Error {
  override name = 'RelayHttpError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class RelayManager implements vscode.Disposable {
  state: RelayState = 'stopped';
  port: number | undefined;
  status: RelayStatusView | undefined;
  detail: string | undefined;
  readonly live = new RelayLiveList();
  private child: ChildProcess | undefined;
  private token: string | undefined;
  private subscription: { close(): void } | undefined;
  private statusItem: vscode.StatusBarItem | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private probed = false;

  constructor(
    private readonly extensionPath: string,
    readonly dataDir: string,
  ) {}

  get baseUrl(): string | undefined {
    return this.port === undefined ? undefined : `http://127.0.0.1:${this.port}`;
  }

  get connected(): boolean {
    return this.state === 'running' && this.token !== undefined;
  }

  get ownsProcess(): boolean {
    return this.child !== undefined;
  }

  /** Ingress URL of a channel, offered by Add Webhook. */
  ingressUrl(channel = 'default'): string {
    return `http://127.0.0.1:${this.port ?? settings().relayPort}/hooks/${channel}`;
  }

  showStatusBar(): void {
    if (!this.statusItem) {
      this.statusItem = vscode.window.createStatusBarItem('serviceHooks.relay', vscode.StatusBarAlignment.Left, 10);
      this.statusItem.name = 'Service Relay';
    }
    const item = this.statusItem;
    switch (this.state) {
      case 'running':
        item.text = `$(radio-tower) Relay :${this.port}`;
        item.tooltip = `Relay running on port ${this.port}${this.child ? ' (started here)' : ''}. Click to stop.`;
        item.command = COMMANDS.stopRelay;
        break;
      case 'starting':
      case 'connecting':
        item.text = '$(loading~spin) Relay';
        item.tooltip = 'Relay starting…';
        item.command = undefined;
        break;
      default:
        item.text = this.state === 'failed' ? '$(error) Relay' : '$(debug-disconnect) Relay off';
        item.tooltip = this.detail ?? 'Relay not running. Click to start.';
        item.command = COMMANDS.startRelay;
    }
    item.show();
  }

  private setState(state: RelayState, detail?: string): void {
    this.state = state;
    this.detail = detail;
    void vscode.commands.executeCommand('setContext', CONTEXT.relayRunning, state === 'running');
    this.showStatusBar();
    this.changed.fire();
  }

  /** Coalesces bursts of live messages into one tree refresh. */
  private scheduleChange(): void {
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      this.changed.fire();
    }, 100);
  }

  /** Connects to a relay already listening on the configured port (no-op if none). Called lazily by the Relay view. */
  async probe(force = false): Promise<void> {
    if ((this.probed && !force) || this.state === 'starting' || this.state === 'connecting' || this.child) return;
    this.probed = true;
    const port = settings().relayPort;
    if (!port || (this.connected && this.port === port)) return;
    if (!(await healthy(port))) {
      if (this.state !== 'stopped' && !this.connected) this.setState('offline', `No relay answers on port ${port}.`);
      return;
    }
    if (this.connected && this.port === port) return; // attached meanwhile
    try {
      await this.attach(port, await this.readToken());
    } catch (err) {
      log().warn(`relay on port ${port} answers but cannot be used: ${(err as Error).message}`);
      if (!this.connected) this.setState('offline', `A relay answers on port ${port} but its token is not in ${this.dataDir}.`);
    }
  }

  private async readToken(): Promise<string> {
    return (await readFile(join(this.dataDir, 'token'), 'utf8')).trim();
  }

  /** Uses a relay listening on `port` with `token`: reads its status and subscribes to live deliveries. */
  async attach(port: number, token: string): Promise<void> {
    this.closeSubscription();
    this.port = port;
    this.token = token;
    this.setState('connecting');
    this.status = await this.rest<RelayStatusView>('GET', '/api/status');
    const recent = await this.rest<{ deliveries: RelayDeliveryView[]; lastSeq: number }>('GET', '/api/deliveries?limit=200');
    for (const d of recent.deliveries) this.live.upsert(d);
    this.setState('running');
    await this.subscribe();
  }

  private async subscribe(): Promise<void> {
    const { subscribe } = await loadRelayClient();
    const since = this.live.lastSeq;
    const port = this.port!;
    const sub = subscribe({
      url: `ws://127.0.0.1:${port}/ws`,
      token: this.token!,
      since,
      bodies: false,
      onDelivery: (d: RelayDeliveryView & { headers?: unknown; bodyBase64?: unknown }) => {
        this.live.upsert(stripDetail(d)); // the view keeps summaries only
        void this.refreshStatus();
        this.scheduleChange();
      },
      onForward: (f: unknown) => {
        // relay/protocol ForwardMessage: { seq, attempt, state } — update the row in place.
        const msg = f as { seq?: number; state?: RelayDeliveryView['forward'][number] };
        if (typeof msg.seq !== 'number') return;
        const known = this.live.get(msg.seq);
        if (known && msg.state) {
          const forward = known.forward.some((x) => x.target === msg.state!.target)
            ? known.forward.map((x) => (x.target === msg.state!.target ? msg.state! : x))
            : [...known.forward, msg.state];
          this.live.upsert({ ...known, forward });
          void this.refreshStatus();
          this.scheduleChange();
        } else {
          void this.refreshOne(msg.seq);
        }
      },
      onState: (s: unknown) => {
        // The relay client reconnects by itself (resuming from the last acknowledged seq);
        // mirror its connection state in the view and the status bar.
        const name = typeof s === 'string' ? s : String((s as { state?: unknown })?.state ?? '');
        log().debug(`relay subscription: ${JSON.stringify(s)}`);
        if (/^(open|connected|live)$/i.test(name) && this.state === 'connecting') this.setState('running');
        else if (/^(closed|reconnecting|disconnected|backoff)$/i.test(name) && this.state === 'running') this.setState('connecting', 'Reconnecting to the relay…');
      },
    } as Parameters<typeof subscribe>[0]);
    this.subscription = sub as unknown as { close(): void };
  }

  private async refreshOne(seq: number): Promise<void> {
    try {
      const d = await this.rest<RelayDeliveryView>('GET', `/api/deliveries/${seq}`);
      this.live.upsert(stripDetail(d));
      await this.refreshStatus();
      this.scheduleChange();
    } catch (err) {
      log().warn(`relay delivery ${seq}: ${(err as Error).message}`);
    }
  }

  async refreshStatus(): Promise<void> {
    if (!this.connected) return;
    try {
      this.status = await this.rest<RelayStatusView>('GET', '/api/status');
    } catch (err) {
      log().warn(`relay status: ${(err as Error).message}`);
    }
  }

  /** Re-reads status and the journal head (Refresh). */
  async reload(): Promise<void> {
    if (!this.connected) return this.probe(true);
    await this.refreshStatus();
    const recent = await this.rest<{ deliveries: RelayDeliveryView[] }>('GET', '/api/deliveries?limit=200');
    for (const d of recent.deliveries) this.live.upsert(d);
    this.changed.fire();
  }

  async rest<T>(method: string, path: string, body?: unknown): Promise<T> {
    if (!this.baseUrl || !this.token) throw new RelayHttpError(0, 'The relay is not running. Start it with "Start Relay".');
    const res = await fetch(this.baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new RelayHttpError(res.status, `relay ${method} ${path.split('?')[0]} answered ${res.status}: ${text.slice(0, 200)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  listDeliveries(query: { channel?: string; limit?: number } = {}): Promise<{ deliveries: RelayDeliveryView[]; lastSeq: number }> {
    const q = new URLSearchParams();
    if (query.channel) q.set('channel', query.channel);
    q.set('limit', String(query.limit ?? 200));
    return this.rest('GET', `/api/deliveries?${q}`);
  }

  getDelivery(seq: number): Promise<RelayDeliveryDetail> {
    return this.rest('GET', `/api/deliveries/${seq}`);
  }

  replay(seq: number, to?: string): Promise<{ attempts: { status?: number; error?: string; ok?: boolean }[] }> {
    return this.rest('POST', `/api/deliveries/${seq}/replay`, to ? { to } : {});
  }

  /** Start Relay: runs the bundled CLI (`dist/cli.js relay …`) with the editor's Node. */
  async start(): Promise<void> {
    if (this.child) return;
    const s = settings();
    const cli = join(this.extensionPath, 'dist', 'cli.js');
    const args = [cli, 'relay', '--port', String(s.relayPort), '--data', this.dataDir];
    if (s.relayForwardUrl) args.push('--forward', s.relayForwardUrl);
    this.setState('starting');
    log().info(`starting relay: ${process.execPath} ${args.map((a) => JSON.stringify(a)).join(' ')}`);
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    let output = '';
    let announcedPort: number | undefined;
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8').split('\n').map(redactToken).join('\n');
      output = (output + text).slice(-4000);
      // The relay prints its token once when it creates it: never copy that into the log.
      for (const line of text.split(/\r?\n/)) if (line.trim()) log().info(`[relay] ${line}`);
      const m = /(?:127\.0\.0\.1|localhost|0\.0\.0\.0|\[::1?\]):(\d+)/.exec(output) ?? /\bport (\d+)/i.exec(output);
      if (m && announcedPort === undefined) announcedPort = Number(m[1]);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    void exited.then((code) => {
      if (this.child !== child) return;
      this.child = undefined;
      this.closeSubscription();
      this.token = undefined;
      this.setState(code === 0 || code === null ? 'stopped' : 'failed', `Relay exited with code ${code}. ${output.trim().split('\n').slice(-2).join(' ')}`);
    });
    // Wait until the relay answers /healthz (it writes its token before listening), or exits.
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (this.child !== child) throw new Error(`The relay exited during start-up: ${output.trim().slice(-300) || 'no output'}`);
      const port = s.relayPort || announcedPort;
      if (port && (await healthy(port))) {
        await this.attach(port, await this.readToken());
        return;
      }
      if (Date.now() > deadline) {
        child.kill();
        throw new Error(`The relay did not answer within 15 s: ${output.trim().slice(-300) || 'no output'}`);
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 100))]);
    }
  }

  /** Stop Relay: ends the child process this window started; a relay started elsewhere is only disconnected. */
  async stop(): Promise<'stopped' | 'disconnected' | 'not-running'> {
    const child = this.child;
    this.closeSubscription();
    if (!child) {
      const was = this.state;
      this.token = undefined;
      this.setState('stopped');
      return was === 'running' ? 'disconnected' : 'not-running';
    }
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
    return 'stopped';
  }

  private closeSubscription(): void {
    try {
      this.subscription?.close();
    } catch {
      // already closed
    }
    this.subscription = undefined;
  }

  dispose(): void {
    this.closeSubscription();
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.child?.kill('SIGTERM');
    this.statusItem?.dispose();
    this.changed.dispose();
  }
}

function stripDetail(d: RelayDeliveryView & { headers?: unknown; bodyBase64?: unknown }): RelayDeliveryView {
  const { headers: _h, bodyBase64: _b, ...rest } = d;
  return rest;
}

export function redactToken(line: string): string {
  return /token/i.test(line) ? line.replace(/(token\b[^:]*:\s*)\S+/gi, '$1<redacted>') : line;
}

async function healthy(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}
