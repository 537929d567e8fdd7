// The relay as the editor sees it: at most one connection (a local relay on the configured port,
// started here or found there, or a remote relay from "Connect to Relay…"), the process Start Relay
// runs, and the status bar item. The parts live in ./relay/: process.ts (spawn/stop),
// connection.ts (RelayApi, subscription, live list), forwarding.ts (remote → local app),
// statusBar.ts. This class only decides which of them is in use.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { DeliveryList, DeliveryListQuery, RelayDelivery, RelayStatus, ReplayResponse } from '../../relay/client';
import { describeConnectError, forwardTargets, parseRelayAddress, relayChannelOfUrl, RelayLiveList, seqKey, webhookUrlChoices, type ForwardSession, type RelayAddress, type RelayState, type WebhookUrlChoice } from '../core/tree';
import { settings } from './config';
import { loadRelayClient } from './deps';
import { UserError } from './errors';
import { CONTEXT, RELAY_STORAGE } from './ids';
import { log } from './log';
import { extraCa, RelayConnection, type RelayEndpoint } from './relay/connection';
import { EditorForwarder } from './relay/forwarding';
import { RelayProcess } from './relay/process';
import { RelayStatusBar } from './relay/statusBar';

export type RelayDeliveryDetail = RelayDelivery;


const REMOTE_KEY = RELAY_STORAGE.remote;
const LOCAL_SECRET_KEY = RELAY_STORAGE.localSecret;
const remoteTokenKey = (httpUrl: string) => RELAY_STORAGE.remoteTokenPrefix + httpUrl;
const EMPTY = new RelayLiveList(0);

export interface RelayManagerOptions {
  extensionPath: string;
  dataDir: string;
  secrets: vscode.SecretStorage;
  globalState: vscode.Memento;
}

export class RelayManager implements vscode.Disposable {
  readonly dataDir: string;
  private conn: RelayConnection | undefined;
  private connSub: { dispose(): void } | undefined;
  private forwarder: EditorForwarder | undefined;
  private remote: RelayAddress | undefined;
  private localPort: number | undefined;
  private phase: RelayState = 'stopped';
  private phaseDetail: string | undefined;
  private forwardProblem: string | undefined;
  private probed = false;
  private busy = false;
  private readonly process = new RelayProcess();
  private readonly statusBar = new RelayStatusBar();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly o: RelayManagerOptions) {
    this.dataDir = o.dataDir;
    this.process.onExit((code, output) => {
      const last = output.trim().split(/\r?\n/).filter((l) => !/token/i.test(l)).slice(-2).join(' ');
      void this.detach().then(() => this.setPhase(code === 0 || code === null ? 'stopped' : 'failed', `Relay exited with code ${code}. ${last}`));
    });
  }

  get state(): RelayState {
    if (this.conn && this.conn.state !== 'closed') return this.conn.state === 'running' ? 'running' : 'connecting';
    return this.phase;
  }
  get detail(): string | undefined {
    return (this.conn?.state === 'connecting' ? this.conn.detail : undefined) ?? this.forwardProblem ?? this.phaseDetail;
  }
  /** Port of the local relay in use (undefined for a remote relay or none). */
  get port(): number | undefined {
    return this.remote ? undefined : this.localPort;
  }
  /** The remote relay's label (relay.example.com) when connected through "Connect to Relay…". */
  get remoteLabel(): string | undefined {
    return this.remote?.label;
  }
  get status(): RelayStatus | undefined {
    return this.conn?.status;
  }
  get live(): RelayLiveList {
    return this.conn?.live ?? EMPTY;
  }
  get connected(): boolean {
    return this.conn?.state === 'running';
  }
  get ownsProcess(): boolean {
    return this.process.running;
  }
  /** The connection in use (tests read its counters). */
  get connection(): RelayConnection | undefined {
    return this.conn;
  }
  /** The apps deliveries of a remote relay are forwarded to: the forward sessions' first, then the setting's. */
  get forwardTargets(): string[] {
    return this.remote ? forwardTargets(this.sessions(), settings().relayForwardUrl || undefined) : [];
  }
  /** Where deliveries of a remote relay are forwarded (the first of forwardTargets). */
  get forwardTo(): string | undefined {
    return this.forwardTargets[0];
  }

  /** Ingress URL of a channel on the relay in use (or the local relay's, configured port). */
  ingressUrl(channel = 'default'): string {
    // The relay's own URL for it first: behind --public-url it differs from the address connected to.
    if (this.remote) return this.status?.channels.find((c) => c.name === channel)?.ingressUrl ?? `${this.remote.httpUrl}/hooks/${encodeURIComponent(channel)}`;
    return `http://127.0.0.1:${this.localPort ?? settings().relayPort}/hooks/${channel}`;
  }

  /** Payload URLs for Add Webhook: the connected relay's channels first, the local relay's when the service can reach it. */
  webhookUrlChoices(): WebhookUrlChoice[] {
    const remote = this.remote && {
      label: this.remote.label,
      channels: (this.status?.channels ?? []).map((c) => ({ name: c.name, ingressUrl: this.ingressUrl(c.name) })),
    };
    const localUrl = `http://127.0.0.1:${this.localPort ?? settings().relayPort}/hooks/default`;
    return webhookUrlChoices({ remote, localUrl, serviceBaseUrl: settings().baseUrl });
  }

  /** The secret a generated-secret webhook to `url` gets: the local relay's shared one for its ingress, else none (generate). */
  async sharedSecretFor(url: string): Promise<string | undefined> {
    if (relayChannelOfUrl(url, this.localPort ?? settings().relayPort) === undefined) return undefined;
    return this.localSecret();
  }

  /** The status bar item's text (read by the tests). */
  get statusBarText(): string | undefined {
    return this.statusBar.current?.text;
  }

  showStatusBar(): void {
    const targets = this.forwardTargets;
    this.statusBar.show({
      state: this.state,
      port: this.port,
      remote: this.remote?.label,
      forwardTo: targets[0],
      otherTargets: Math.max(0, targets.length - 1),
      detail: this.detail,
      ownsProcess: this.ownsProcess,
      forwardFailing: this.forwardProblem !== undefined,
    });
  }

  private fire(): void {
    void vscode.commands.executeCommand('setContext', CONTEXT.relayRunning, this.state === 'running' || this.state === 'connecting');
    void vscode.commands.executeCommand('setContext', CONTEXT.relayRemote, this.remote !== undefined);
    this.showStatusBar();
    this.changed.fire();
  }

  private setPhase(phase: RelayState, detail?: string): void {
    this.phase = phase;
    this.phaseDetail = detail;
    this.fire();
  }

  /** Opens `conn`, then makes it the one connection: the previous one (and its rows) goes. A connection that fails to open changes nothing. */
  private async use(conn: RelayConnection, where: { remote?: RelayAddress; port?: number }): Promise<void> {
    try {
      await conn.open();
    } catch (err) {
      await conn.close();
      throw err;
    }
    await this.detach();
    this.conn = conn;
    this.remote = where.remote;
    this.localPort = where.port;
    this.connSub = conn.onDidChange(() => this.fire());
    this.phaseDetail = undefined;
    this.fire();
  }

  /** Closes the connection in use; its rows go with it. */
  private async detach(): Promise<void> {
    const conn = this.conn;
    this.forwarder?.stop();
    this.forwarder = undefined;
    this.forwardProblem = undefined;
    this.conn = undefined;
    this.remote = undefined;
    this.localPort = undefined;
    this.connSub?.dispose();
    this.connSub = undefined;
    await conn?.close();
    this.fire();
  }

  /** Uses the local relay listening on `port` with `token` (its admin token). */
  async attach(port: number, token: string): Promise<void> {
    const client = await loadRelayClient();
    const endpoint: RelayEndpoint = { httpUrl: `http://127.0.0.1:${port}`, wsUrl: `ws://127.0.0.1:${port}/ws`, token, label: `port ${port}` };
    await this.use(new RelayConnection({ endpoint, client, log: (level, line) => log()[level](line) }), { port });
  }

  /**
   * Attaches to a relay already listening on the configured port, when its token is the one in this
   * editor's data folder (a relay started by another window or session). `force`: probe again even
   * if done; a changed port setting drops the rows of the relay on the old port first.
   */
  async probe(options: { force?: boolean } = {}): Promise<void> {
    if ((this.probed && !options.force) || this.busy || this.process.running || this.remote) return;
    this.probed = true;
    const port = settings().relayPort;
    if (this.conn && this.localPort === port) return;
    if (this.conn) {
      await this.detach();
      this.setPhase('stopped');
    }
    if (!port) return;
    const client = await loadRelayClient();
    try {
      await new client.RelayApi({ baseUrl: `http://127.0.0.1:${port}`, token: '', timeoutMs: 1000 }).health();
    } catch {
      if (this.phase !== 'stopped' && !this.conn) this.setPhase('offline', `No relay answers on port ${port}.`);
      return;
    }
    if (this.conn || this.process.running) return; // attached or started meanwhile
    try {
      await this.attach(port, await this.readLocalToken());
    } catch (err) {
      log().warn(`relay on port ${port} answers but cannot be used: ${(err as Error).message}`);
      if (!this.conn) this.setPhase('offline', `A relay answers on port ${port}, but not with the token in ${this.dataDir}: it was not started by this editor. Use "Connect to Relay…" for it, or set serviceHooks.relay.port.`);
    }
  }

  private async readLocalToken(): Promise<string> {
    return (await readFile(join(this.dataDir, 'token'), 'utf8')).trim();
  }

  /** The secret the local relay verifies with, shared with Add Webhook (SecretStorage; generated once). */
  async localSecret(): Promise<string> {
    const stored = await this.o.secrets.get(LOCAL_SECRET_KEY);
    if (stored) return stored;
    const secret = randomBytes(32).toString('hex');
    await this.o.secrets.store(LOCAL_SECRET_KEY, secret);
    return secret;
  }

  /** Start Relay: runs the bundled CLI; 'attached' when this editor's relay already runs on the port. */
  async start(): Promise<'started' | 'attached'> {
    if (this.remote) throw new UserError(`Connected to ${this.remote.label}. Run "Disconnect from Relay" before starting a local relay.`);
    if (this.process.running) return 'attached';
    const s = settings();
    if (this.conn && this.localPort === s.relayPort && this.connected) return 'attached';
    this.busy = true;
    try {
      await this.detach();
      this.setPhase('starting');
      const started = await this.process.start({
        cliPath: join(this.o.extensionPath, 'dist', 'cli.js'),
        port: s.relayPort,
        dataDir: this.dataDir,
        secrets: [await this.localSecret()],
        forward: s.relayForwardUrl ? [s.relayForwardUrl] : [],
        log: (line) => log().info(line),
      });
      await this.attach(started.port, started.token);
      return 'started';
    } catch (err) {
      await this.process.stop();
      this.setPhase('failed', (err as Error).message);
      throw err;
    } finally {
      this.busy = false;
    }
  }

  /** Stop Relay: ends the relay started here; a relay started elsewhere is only disconnected. */
  async stop(): Promise<'stopped' | 'disconnected' | 'not-running'> {
    if (this.remote) return (await this.disconnectRemote()) ? 'disconnected' : 'not-running';
    const was = this.conn !== undefined;
    await this.detach();
    const stopped = await this.process.stop();
    this.setPhase('stopped');
    return stopped ? 'stopped' : was ? 'disconnected' : 'not-running';
  }

  // ---- remote relays (Connect to Relay…) ----

  /** Connects to a remote relay (address + token), keeps the token in SecretStorage, forwards to the forward URL. */
  async connectRemote(input: string, token: string): Promise<void> {
    const address = parseRelayAddress(input);
    if ('problem' in address) throw new UserError(address.problem);
    if (!token.trim()) throw new UserError('Enter the relay token.');
    if (this.process.running) throw new UserError('The relay started here is running. Stop Relay before connecting to another relay.');
    try {
      await this.openRemote(address, token.trim());
    } catch (err) {
      throw new UserError(describeConnectError(address.label, err as { status?: number; code?: string; cause?: { code?: string }; message?: string }));
    }
    await this.o.secrets.store(remoteTokenKey(address.httpUrl), token.trim());
    await this.o.globalState.update(REMOTE_KEY, { address: address.httpUrl });
  }

  private async openRemote(address: RelayAddress, token: string): Promise<void> {
    const client = await loadRelayClient();
    const targetFor = (channel: string) => this.sessionsOf(address.httpUrl).find((f) => f.channel === channel)?.to ?? (settings().relayForwardUrl || undefined);
    const forwards = Boolean(settings().relayForwardUrl) || this.sessionsOf(address.httpUrl).length > 0;
    const forwarder = forwards
      ? new EditorForwarder({
          client,
          targetFor,
          store: { get: (k) => this.o.globalState.get<number>(k), set: (k, v) => this.o.globalState.update(k, v) },
          key: seqKey(address.httpUrl),
          onProblem: (p) => {
            this.forwardProblem = p;
            this.fire();
          },
          log: (line) => log().info(`forward: ${line}`),
        })
      : undefined;
    const endpoint: RelayEndpoint = { httpUrl: address.httpUrl, wsUrl: address.wsUrl, token, label: address.label };
    const conn = new RelayConnection({
      endpoint,
      client,
      since: forwarder?.since,
      handle: forwarder?.handle,
      onOpen: (head) => forwarder?.remember(head),
      log: (level, line) => log()[level](line),
      ca: address.tls ? extraCa() : undefined,
    });
    forwarder?.attach(conn);
    await this.use(conn, { remote: address });
    this.forwarder = forwarder;
  }

  private sessionsOf(relay: string): ForwardSession[] {
    return (this.o.globalState.get<ForwardSession[]>(RELAY_STORAGE.sessions) ?? []).filter((f) => f.relay === relay);
  }

  /** "Forward Webhooks to Local App" set-ups on the remote relay in use. */
  sessions(): ForwardSession[] {
    return this.remote ? this.sessionsOf(this.remote.httpUrl) : [];
  }

  /** The API of the remote relay in use (channels: POST/DELETE /api/channels); explains what is missing otherwise. */
  remoteApi(): { api: RelayConnection['api']; relay: RelayAddress } {
    if (!this.remote || !this.conn) throw new UserError('Not connected to a relay the service can reach. Run "Connect to Relay…" first.');
    return { api: this.conn.api, relay: this.remote };
  }

  /** Remembers a forward set-up and reconnects so its channel's deliveries go to its local app. */
  async startSession(session: ForwardSession): Promise<void> {
    const all = (this.o.globalState.get<ForwardSession[]>(RELAY_STORAGE.sessions) ?? []).filter((f) => !(f.relay === session.relay && f.channel === session.channel));
    await this.o.globalState.update(RELAY_STORAGE.sessions, [...all, session]);
    await this.reopenRemote();
  }

  /** Forgets a forward set-up (its channel is no longer forwarded); returns it. */
  async endSession(channel: string): Promise<ForwardSession | undefined> {
    const relay = this.remote?.httpUrl;
    const all = this.o.globalState.get<ForwardSession[]>(RELAY_STORAGE.sessions) ?? [];
    const ended = all.find((f) => f.relay === relay && f.channel === channel);
    if (!ended) return undefined;
    await this.o.globalState.update(RELAY_STORAGE.sessions, all.filter((f) => f !== ended));
    await this.reopenRemote();
    return ended;
  }

  /** Re-opens the remote connection (forward targets changed): the old one goes first, so nothing is forwarded twice. */
  private async reopenRemote(): Promise<void> {
    const remote = this.remote;
    const token = this.conn?.endpoint.token;
    if (!remote || !token) return;
    await this.detach();
    try {
      await this.openRemote(remote, token);
    } catch (err) {
      this.remote = remote;
      this.setPhase('offline', `Cannot connect to ${remote.label}: ${(err as Error).message}`);
      throw err;
    }
  }

  /** Reconnects to the remote relay remembered from an earlier session (activation, forward URL change). */
  async restoreRemote(): Promise<boolean> {
    const remembered = this.o.globalState.get<{ address: string }>(REMOTE_KEY);
    if (!remembered) return false;
    const address = parseRelayAddress(remembered.address);
    const token = await this.o.secrets.get(remoteTokenKey(remembered.address));
    if ('problem' in address || !token) return false;
    if (this.remote) await this.detach(); // one subscription at a time: nothing is forwarded twice
    try {
      await this.openRemote(address, token);
      return true;
    } catch (err) {
      log().warn(`relay ${address.label}: ${(err as Error).message}`);
      this.remote = address;
      this.setPhase('offline', `Cannot connect to ${address.label}: ${(err as Error).message}`);
      return false;
    }
  }

  /**
   * Closes the connection as closing the editor does: the remote relay's token and the resume point
   * stay, so restoreRemote() (the next activation) resumes where forwarding stopped.
   */
  async closeConnection(): Promise<void> {
    const remote = this.remote;
    await this.detach();
    if (remote) this.remote = remote;
    this.setPhase(remote ? 'offline' : 'stopped', remote ? `Not connected to ${remote.label}.` : undefined);
  }

  /** Disconnect from Relay: closes the connection and forgets the token (the resume point stays). */
  async disconnectRemote(): Promise<boolean> {
    const remembered = this.o.globalState.get<{ address: string }>(REMOTE_KEY);
    const address = this.remote?.httpUrl ?? remembered?.address;
    await this.detach();
    if (address) await this.o.secrets.delete(remoteTokenKey(address));
    await this.o.globalState.update(REMOTE_KEY, undefined);
    this.setPhase('stopped');
    return address !== undefined;
  }

  // ---- the API of the relay in use ----

  private api(): RelayConnection {
    if (!this.conn) throw new UserError('No relay is connected. Run "Start Relay" or "Connect to Relay…".');
    return this.conn;
  }

  /** Re-reads status and the journal head (Refresh). */
  async reload(): Promise<void> {
    if (!this.conn) return this.probe({ force: true });
    await this.conn.reload();
  }

  listDeliveries(query: DeliveryListQuery = {}): Promise<DeliveryList> {
    return this.api().listDeliveries(query);
  }

  getDelivery(seq: number): Promise<RelayDeliveryDetail> {
    return this.api().getDelivery(seq);
  }

  replay(seq: number, to?: string): Promise<ReplayResponse> {
    return this.api().replay(seq, to ? { to } : {});
  }

  /**
   * Retry pending now: the relay attempts its pending forwards at once (POST /api/forward/retry),
   * and a delivery the editor itself is forwarding (Connect to Relay) is tried again now.
   */
  async retryPending(filter: { channel?: string } = {}): Promise<{ queued: number; editor: boolean }> {
    const conn = this.api();
    const editor = this.forwarder?.retryNow() ?? false;
    try {
      const { queued } = await conn.api.retryPending(filter);
      return { queued, editor };
    } catch (err) {
      // A channel token may not ask the relay (403); the editor's own retry still happened.
      if ((err as { status?: number }).status === 403 && this.forwarder) return { queued: 0, editor };
      throw err;
    }
  }

  dispose(): void {
    this.forwarder?.stop();
    void this.conn?.close();
    this.process.dispose();
    this.statusBar.dispose();
    this.changed.dispose();
  }
}
