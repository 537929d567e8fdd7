// The relay as the editor sees it: at most one connection (a local relay on the configured port,
// started here or found there, or a remote relay from "Connect to Relay…"), the process Start Relay
// runs, and the status bar item. The parts live in ./relay/: process.ts (spawn/stop),
// localRelay.ts (Start Relay's process on a port, the token of a relay found there),
// connection.ts (RelayApi, subscription, live list), forwarding.ts (the relay → local app engine),
// setups.ts (forward set-ups and their secrets), remoteMemory.ts (the remote relay remembered),
// relaySecrets.ts (the signing secrets the editor holds), relayUrls.ts (ingress URLs),
// relayActions.ts (Replay Delivery, Retry pending now), lease.ts (one forwarding host),
// statusBar.ts; inUse.ts is what they read of the relay in use.
// This class decides which of them is in use. Forwarding follows the forward set-ups of the relay
// in use (local or remote) and nothing else: the admin token never sends every channel to one app.
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { DeliveryList, DeliveryListQuery, RelayDelivery, RelayStatus, ReplayResponse } from '../../relay/client';
import { RelayApiError } from '../../relay/client/apiError';
import { alreadyForwarded } from '../core/relay/forwardOnce';
import {
  describeConnectError,
  forwardTargets,
  parseRelayAddress,
  postingWsUrl,
  relayChannelFor,
  RelayLiveList,
  seqKey,
  type ForwardSession,
  type RelayAddress,
  type RelayState,
  type RelayUrls,
  type WebhookUrlChoice,
} from '../core/tree';
import { settings } from './config';
import { loadRelayClient } from './deps';
import { UserError } from './errors';
import { COMMANDS, CONTEXT } from './ids';
import { log } from './log';
import { extraCa, RelayConnection, tokenScope, type RelayDeliveryMessage, type RelayEndpoint, type TokenScope } from './relay/connection';
import { EditorForwarder } from './relay/forwarding';
import { setupOptions } from './relay/setupForwarding';
import { routeOf } from '../core/relay/forwardRouting';
import { localBase, type RelayInUse } from './relay/inUse';
import { ForwardLease } from './relay/lease';
import { LocalRelay } from './relay/localRelay';
import { RemoteMemory } from './relay/remoteMemory';
import { RelayActions } from './relay/relayActions';
import { lastLines, RelayProcess, RelayStartError } from './relay/process';
import { RelaySecrets, type GeneratedSecret, type HeldSecret } from './relay/relaySecrets';
import { ingressUrlOf, ingressUrlsOf, payloadUrlChoices } from './relay/relayUrls';
import { ForwardSetups } from './relay/setups';
import { RelayStatusBar } from './relay/statusBar';
import type { SerialState } from './serialState';

export type RelayDeliveryDetail = RelayDelivery;

const EMPTY = new RelayLiveList(0);

export interface RelayManagerOptions {
  extensionPath: string;
  dataDir: string;
  secrets: vscode.SecretStorage;
  /** The extension's globalState, one write at a time: concurrent writes of VS Code's own lose values (serialState.ts). */
  globalState: SerialState;
}

/** Told when the relay refuses the token of the connection in use (revoked token, deleted channel). */
export type RefusedListener = (label: string, status: number) => void;

export class RelayManager implements vscode.Disposable {
  readonly dataDir: string;
  readonly setups: ForwardSetups;
  private conn: RelayConnection | undefined;
  private connSub: { dispose(): void } | undefined;
  private forwarder: EditorForwarder | undefined;
  private remote: RelayAddress | undefined;
  private localPort: number | undefined;
  private tokenScope: TokenScope | undefined;
  private phase: RelayState = 'stopped';
  private phaseDetail: string | undefined;
  private forwardProblem: string | undefined;
  private probed = false;
  private busy = false;
  /** restore() in progress: probe() waits for it (a remembered connection comes first). */
  private restoring: Promise<void> | undefined;
  /** Connection changes, one at a time (restore, probe, connect, set-ups). */
  private queue: Promise<unknown> = Promise.resolve();
  private queued = 0;
  private readonly lease: ForwardLease;
  private readonly refusedListeners = new Set<RefusedListener>();
  private readonly process = new RelayProcess();
  private readonly statusBar = new RelayStatusBar();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  /** The relay in use as the collaborators read it: getters over the fields above, so always current. */
  private readonly inUse: RelayInUse;
  private readonly secrets: RelaySecrets;
  private readonly local: LocalRelay;
  /** The remote relay remembered between sessions (address, token, the last address typed). */
  private readonly remembered: RemoteMemory;
  private readonly actions: RelayActions;

  constructor(private readonly o: RelayManagerOptions) {
    this.dataDir = o.dataDir;
    this.setups = new ForwardSetups(o.globalState, o.secrets);
    // Live getters: a collaborator that reads after an await sees the relay in use now.
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getters' own `this` is the object literal
    const self = this;
    this.inUse = {
      get conn() {
        return self.conn;
      },
      get remote() {
        return self.remote;
      },
      get localPort() {
        return self.localPort;
      },
      get scope() {
        return self.tokenScope;
      },
      get base() {
        return self.relayBase;
      },
      get status() {
        return self.status;
      },
      get ownsProcess() {
        return self.process.running;
      },
    };
    this.secrets = new RelaySecrets(this.inUse, this.setups, o.secrets, (url) => this.channelOf(url));
    this.remembered = new RemoteMemory(o.globalState, o.secrets);
    this.actions = new RelayActions({
      connection: () => this.api(),
      targetFor: (channel, event) => this.targetFor(channel, undefined, undefined, event),
      forwarder: () => this.forwarder,
    });
    this.local = new LocalRelay(this.process, { extensionPath: o.extensionPath, dataDir: o.dataDir, localSecret: () => this.localSecret() });
    this.lease = new ForwardLease(join(dirname(o.dataDir), 'forward-owner.json'));
    this.process.onExit((code, output) => {
      const last = lastLines(output);
      void this.detach().then(() => this.setPhase(code === 0 || code === null ? 'stopped' : 'failed', `Relay exited with code ${code}. ${last}`));
    });
  }

  /** Runs `fn` after every connection change before it: two never interleave (Reload Window restores while the Relay view probes). */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    this.queued++;
    const run = this.queue.then(fn, fn).finally(() => this.queued--);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** A connection change is queued or running (whenConnected.ts waits it out). */
  get changing(): boolean {
    return this.queued > 0;
  }

  /** Resolves once the connection changes queued now have run. */
  settled(): Promise<void> {
    return this.queue.then(() => undefined);
  }

  onRefused(listener: RefusedListener): { dispose(): void } {
    this.refusedListeners.add(listener);
    return { dispose: () => this.refusedListeners.delete(listener) };
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
  /** The base URL of the relay in use (remote, or http://127.0.0.1:<port>): forward set-ups are kept under it. */
  get relayBase(): string | undefined {
    return this.remote?.httpUrl ?? (this.localPort !== undefined && this.conn ? localBase(this.localPort) : undefined);
  }
  /** What the token in use may do: admin, or one channel (undefined: not connected). */
  get scope(): TokenScope | undefined {
    return this.conn ? this.tokenScope : undefined;
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
  /** The apps deliveries of the relay in use are forwarded to: the forward set-ups', and the setting's for a channel token's channel. */
  get forwardTargets(): string[] {
    if (!this.relayBase) return [];
    return forwardTargets(this.sessions(), this.tokenScope?.kind === 'channel' ? settings().relayForwardUrl || undefined : undefined);
  }
  /** Where deliveries are forwarded (the first of forwardTargets). */
  get forwardTo(): string | undefined {
    return this.forwardTargets[0];
  }

  /** The app a delivery of `channel` (and `event`) goes to: its set-up's (routes, filter), or (a channel token's own channel) the forward URL setting. */
  targetFor(channel: string, relay = this.relayBase, scope = this.tokenScope, event?: string): string | undefined {
    const session = this.setups.of(relay).find((f) => f.channel === channel);
    if (session) return routeOf(session, event);
    if (scope?.kind === 'channel' && (scope.channel === undefined || scope.channel === channel)) return settings().relayForwardUrl || undefined;
    return undefined;
  }

  /** Ingress URL of a channel on the relay in use (or the local relay's, configured port). */
  ingressUrl(channel = 'default'): string {
    return ingressUrlOf(this.inUse, channel);
  }

  /** Payload URLs for Add Webhook (relayUrls.ts payloadUrlChoices). */
  webhookUrlChoices(newChannel?: string): WebhookUrlChoice[] {
    return payloadUrlChoices(this.inUse, newChannel);
  }

  /** The URLs the relay in use answers ingress at; the Webhooks view matches webhook URLs against these (relayUrls.ts). */
  urls(): RelayUrls {
    return ingressUrlsOf(this.inUse);
  }

  /** The channel of the relay in use (or the local relay's) that `url` delivers to. */
  channelOf(url: string): string | undefined {
    return relayChannelFor(url, this.urls());
  }

  /** The signing secret the editor holds for the relay ingress `url` (RelaySecrets.heldSecretFor). */
  heldSecretFor(url: string): Promise<string | undefined> {
    return this.secrets.heldSecretFor(url);
  }

  /** Keeps a rotated secret where `url`'s forward set-up keeps its channel's (RelaySecrets.replaceHeld). */
  replaceHeldSecret(url: string, secret: string): Promise<boolean> {
    return this.secrets.replaceHeld(url, secret);
  }

  /** Why a generated secret could not verify at `url` (RelaySecrets.generateProblem). */
  generateProblem(url: string): Promise<string | undefined> {
    return this.secrets.generateProblem(url);
  }

  /** The secret a webhook to `url` gets when Add Webhook generates one (RelaySecrets.secretForGenerated). */
  secretForGenerated(url: string, generated: string): Promise<GeneratedSecret> {
    return this.secrets.secretForGenerated(url, generated);
  }

  /** The signing secrets the editor holds for the relay in use (RelaySecrets.signingSecrets). */
  signingSecrets(): Promise<HeldSecret[]> {
    return this.secrets.signingSecrets();
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
  private async use(conn: RelayConnection, where: { remote?: RelayAddress; port?: number }, scope: TokenScope): Promise<void> {
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
    this.tokenScope = scope;
    this.connSub = conn.onDidChange(() => {
      if (conn.refused !== undefined && conn === this.conn) void this.refused(conn);
      else this.fire();
    });
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
    this.tokenScope = undefined;
    this.connSub?.dispose();
    this.connSub = undefined;
    await conn?.close();
    this.fire();
  }

  /** The relay refused the token on a reconnect (revoked, or its channel deleted): stop, say so, offer Connect to Relay…. */
  private async refused(conn: RelayConnection): Promise<void> {
    const remote = this.remote;
    const label = remote?.label ?? conn.endpoint.label;
    const status = conn.refused!;
    await this.detach();
    this.remote = remote; // "Not connected to <relay>"; Connect to Relay… is the way back
    this.setPhase(
      'failed',
      `${label} refused the token (HTTP ${status}): it was revoked, or its channel was deleted. Run "Connect to Relay…" with a valid token.`,
    );
    for (const l of [...this.refusedListeners]) l(label, status);
  }

  /**
   * Opens the relay at `address` with `token` and makes it the one in use. Deliveries of the
   * channels of its forward set-ups (and a channel token's own channel, with the forward URL
   * setting) go to their apps; each once: not when the relay's own --forward posts it to the same
   * app, nor when a subscriber already did (before a Reload Window), nor from two windows (lease).
   */
  private async openRelay(address: RelayAddress, token: string, where: { remote?: RelayAddress; port?: number }): Promise<void> {
    const client = await loadRelayClient();
    const relay = address.httpUrl;
    const scope = await tokenScope(new client.RelayApi({ baseUrl: relay, token, timeoutMs: 10_000 }));
    const sessions = this.setups.of(relay);
    const forwards = sessions.length > 0 || (scope.kind === 'channel' && Boolean(settings().relayForwardUrl));
    const forwarder = forwards
      ? new EditorForwarder({
          client,
          targetFor: (channel, event) => this.targetFor(channel, relay, scope, event),
          ...setupOptions(client, sessions),
          store: { get: (k) => this.o.globalState.get<number>(k), set: (k, v) => this.o.globalState.update(k, v) },
          key: seqKey(relay),
          onProblem: (p) => {
            this.forwardProblem = p;
            this.fire();
          },
          log: (line) => log().info(`forward: ${line}`),
        })
      : undefined;
    // Never later than the oldest set-up: a resume point lost with a Reload Window must not skip deliveries.
    const floors = sessions.map((f) => f.since).filter((n): n is number => n !== undefined);
    const since = forwarder?.since ?? (floors.length ? Math.min(...floors) : undefined);
    const handle = forwarder && ((d: RelayDeliveryMessage) => this.forwardOnce(forwarder, d, relay, scope));
    const conn = new RelayConnection({
      // With the admin token it streams every channel but posts only its set-ups' to an app (`posts=`).
      endpoint: {
        httpUrl: relay,
        wsUrl:
          forwarder && scope.kind === 'admin'
            ? postingWsUrl(
                address.wsUrl,
                sessions.map((f) => f.channel),
              )
            : address.wsUrl,
        token,
        label: where.remote ? address.label : `port ${where.port}`,
      } satisfies RelayEndpoint,
      client,
      since,
      handle,
      // A replay the relay asks for: only while this window holds forwarding (the lease).
      replay: forwarder && (async (d: RelayDeliveryMessage) => (this.lease.held() ? forwarder.replay(d) : undefined)),
      onOpen: (head) => (since === undefined ? forwarder?.remember(head) : undefined),
      log: (level, line) => log()[level](line),
      ca: address.tls ? extraCa() : undefined,
    });
    forwarder?.attach(conn); // later results of retried deliveries go to the relay through it
    if (forwarder) {
      await this.detach(); // the old subscription stops forwarding before the new one starts
      this.lease.take();
    }
    await this.use(conn, where, scope);
    this.forwarder = forwarder;
  }

  /** One delivery to its app, unless that would be a second post (see openRelay); throws when another window took forwarding over. */
  private async forwardOnce(forwarder: EditorForwarder, d: RelayDeliveryMessage, relay: string, scope: TokenScope) {
    if (!this.lease.held()) {
      void this.serial(() => this.leaseLost(forwarder));
      throw new Error('another window forwards these deliveries now');
    }
    const to = this.targetFor(d.channel, relay, scope, d.event);
    const why = to ? alreadyForwarded(d.forward, to) : undefined;
    if (why) {
      log().info(
        `forward: #${d.seq} ${d.channel} not posted to ${to}: ${why === 'relay' ? "the relay's own --forward posts it there" : 'a subscriber already forwarded it'}`,
      );
      return undefined;
    }
    return forwarder.handle(d);
  }

  private async leaseLost(forwarder: EditorForwarder): Promise<void> {
    if (this.forwarder !== forwarder) return;
    const remote = this.remote;
    await this.detach();
    this.remote = remote;
    this.setPhase('offline', 'Another VS Code window forwards these deliveries now. Run "Connect to Relay…" here to take over.');
  }

  /** Uses the local relay listening on `port` with `token` (its admin token). */
  attach(port: number, token: string): Promise<void> {
    return this.serial(() => this.attachNow(port, token));
  }

  private async attachNow(port: number, token: string): Promise<void> {
    const address = parseRelayAddress(localBase(port));
    if ('problem' in address) throw new UserError(address.problem);
    await this.openRelay(address, token, { port });
  }

  /**
   * Attaches to a relay already listening on the configured port, when its token is the one in this
   * editor's data folder (a relay started by another window or session). `force`: probe again even
   * if done; a changed port setting drops the rows of the relay on the old port first.
   */
  probe(options: { force?: boolean } = {}): Promise<void> {
    if ((this.probed && !options.force) || this.busy || this.restoring) return Promise.resolve();
    this.probed = true;
    return this.serial(() => this.probeNow());
  }

  private async probeNow(): Promise<void> {
    if (this.process.running || this.remote) return;
    const port = settings().relayPort;
    if (this.conn && this.localPort === port) return;
    if (this.conn) {
      await this.detach();
      this.setPhase('stopped');
    }
    if (!port) return;
    const client = await loadRelayClient();
    try {
      await new client.RelayApi({ baseUrl: localBase(port), token: '', timeoutMs: 1000 }).health();
    } catch {
      if (this.phase !== 'stopped' && this.phase !== 'failed' && !this.conn) this.setPhase('offline', `No relay answers on port ${port}.`);
      return;
    }
    try {
      await this.attachNow(port, await this.local.readToken(port));
    } catch (err) {
      log().warn(`relay on port ${port} answers but cannot be used: ${(err as Error).message}`);
      if (!this.conn)
        this.setPhase(
          'offline',
          `A relay answers on port ${port}, but not with the token in ${this.dataDir}: it was not started by this editor. Use "Connect to Relay…" for it, or set serviceHooks.relay.port.`,
        );
    }
  }

  /**
   * Activation (and so Reload Window): the connection remembered from before comes back by itself,
   * with its forward set-ups, and only then a local relay on the port is looked for: the two never
   * race for the view.
   */
  restore(): Promise<void> {
    this.restoring ??= (async () => {
      let restored: boolean;
      try {
        restored = await this.restoreRemote();
      } finally {
        this.restoring = undefined;
      }
      if (!restored) await this.probe({ force: true });
    })();
    return this.restoring;
  }

  /** The secret the local relay verifies with, shared with Add Webhook (SecretStorage; generated once). */
  localSecret(): Promise<string> {
    return this.secrets.localSecret();
  }

  /** Start Relay: runs the bundled CLI; 'attached' when this editor's relay already runs on the port. */
  start(): Promise<'started' | 'attached'> {
    return this.serial(() => this.startNow());
  }

  private async startNow(): Promise<'started' | 'attached'> {
    if (this.remote && this.conn) throw new UserError(`Connected to ${this.remote.label}. Run "Disconnect from Relay" before starting a local relay.`);
    if (this.process.running) return 'attached';
    const s = settings();
    if (this.conn && this.localPort === s.relayPort && this.connected) return 'attached';
    // A relay of this editor's (the demo's, another window's) already runs on the port: use it.
    if (!this.remote) await this.probeNow();
    if (this.conn && this.localPort === s.relayPort && this.connected) return 'attached';
    this.busy = true;
    try {
      await this.detach();
      this.setPhase('starting');
      const started = await this.local.spawn(s.relayPort, s.relayForwardUrl);
      await this.attachNow(started.port, started.token);
      return 'started';
    } catch (err) {
      await this.process.stop();
      this.setPhase('failed', (err as Error).message);
      if (err instanceof RelayStartError && /already in use/.test(err.message)) {
        throw new UserError(err.message, [
          { title: 'Change Relay Port…', command: COMMANDS.changeRelayPort },
          { title: 'Show Logs', command: COMMANDS.showLogs },
        ]);
      }
      throw err;
    } finally {
      this.busy = false;
    }
  }

  /** Stop Relay: ends the relay started here; a relay started elsewhere is only disconnected. */
  async stop(): Promise<'stopped' | 'disconnected' | 'not-running'> {
    if (this.remote) return (await this.disconnectRemote()) ? 'disconnected' : 'not-running';
    const was = this.conn !== undefined;
    await this.serial(() => this.detach());
    const stopped = await this.process.stop();
    this.setPhase('stopped');
    return stopped ? 'stopped' : was ? 'disconnected' : 'not-running';
  }

  // ---- remote relays (Connect to Relay…) ----

  /** The address Connect to Relay… offers first: the last one typed (kept after Disconnect). */
  get lastAddress(): string | undefined {
    return this.remembered.lastAddress;
  }

  /** Connects to a remote relay (address + token), keeps the token in SecretStorage; forwards its set-ups' channels. */
  async connectRemote(input: string, token: string): Promise<void> {
    const address = parseRelayAddress(input);
    if ('problem' in address) throw new UserError(address.problem);
    if (!token.trim()) throw new UserError('Enter the relay token.');
    if (this.process.running) throw new UserError('The relay started here is running. Stop Relay before connecting to another relay.');
    await this.remembered.typed(input.trim());
    try {
      await this.serial(() => this.openRelay(address, token.trim(), { remote: address }));
    } catch (err) {
      throw new UserError(
        describeConnectError(address.label, err as { status?: number; code?: string; cause?: { code?: string }; message?: string }, address.tls),
      );
    }
    await this.remembered.remember(address.httpUrl, token.trim());
  }

  /** "Forward Webhooks to Local App" set-ups on the relay in use. */
  sessions(): ForwardSession[] {
    return this.setups.of(this.relayBase);
  }

  /** The API of the relay in use (channels: POST/DELETE /api/channels, with the admin token); explains what is missing otherwise. */
  relayApi(): { api: RelayConnection['api']; relay: RelayAddress; scope: TokenScope } {
    const base = this.relayBase;
    const address = base && parseRelayAddress(base);
    if (!this.conn || !address || 'problem' in address) throw new UserError('Not connected to a relay. Run "Connect to Relay…" or "Start Relay" first.');
    return { api: this.conn.api, relay: this.remote ?? address, scope: this.tokenScope ?? { kind: 'admin' } };
  }

  /** Same as relayApi() (its former name). */
  remoteApi(): { api: RelayConnection['api']; relay: RelayAddress } {
    return this.relayApi();
  }

  /**
   * Remembers a forward set-up (with the relay's head, so forwarding never starts later than now,
   * and its channel's secret when the editor made one), then reconnects so its channel's
   * deliveries go to its local app.
   */
  async startSession(session: ForwardSession, secret?: string): Promise<void> {
    const head =
      session.since ??
      (await this.conn?.api.listDeliveries({ limit: 0 }).then(
        (l) => l.lastSeq,
        () => undefined,
      ));
    if (secret) await this.setups.storeSecret(session.relay, session.channel, secret);
    await this.setups.put({ ...session, ...(head !== undefined ? { since: head } : {}) });
    await this.reopen();
  }

  /** Forgets a forward set-up (its channel is no longer forwarded); returns it. */
  async endSession(channel: string): Promise<ForwardSession | undefined> {
    const relay = this.relayBase;
    if (!relay) return undefined;
    const ended = await this.setups.remove(relay, channel);
    if (ended) await this.reopen();
    return ended;
  }

  /** Re-opens the connection in use (forward targets changed): the old one goes first, so nothing is forwarded twice. */
  private reopen(): Promise<void> {
    return this.serial(async () => {
      const remote = this.remote;
      const port = this.localPort;
      const token = this.conn?.endpoint.token;
      const base = this.relayBase;
      const address = base && parseRelayAddress(base);
      if (!token || !address || 'problem' in address) return;
      await this.detach();
      try {
        await this.openRelay(remote ?? address, token, remote ? { remote } : { port });
      } catch (err) {
        this.remote = remote;
        this.setPhase('offline', `Cannot connect to ${remote?.label ?? `port ${port}`}: ${(err as Error).message}`);
        throw err;
      }
    });
  }

  /** Reconnects to the remote relay remembered from an earlier session (activation, forward URL change). */
  restoreRemote(): Promise<boolean> {
    return this.serial(async () => {
      const remembered = this.remembered.remembered();
      if (!remembered) return false;
      const address = parseRelayAddress(remembered.address);
      const token = await this.remembered.token(remembered.address);
      if ('problem' in address || !token) return false;
      if (this.conn) await this.detach(); // one subscription at a time: nothing is forwarded twice
      try {
        await this.openRelay(address, token, { remote: address });
        return true;
      } catch (err) {
        log().warn(`relay ${address.label}: ${(err as Error).message}`);
        this.remote = address;
        const status = err instanceof RelayApiError ? err.status : undefined;
        if (status === 401 || status === 403) {
          this.setPhase(
            'failed',
            `${address.label} refused the token (HTTP ${status}): it was revoked, or its channel was deleted. Run "Connect to Relay…" with a valid token.`,
          );
          for (const l of [...this.refusedListeners]) l(address.label, status);
        } else this.setPhase('offline', `Cannot connect to ${address.label}: ${(err as Error).message}`);
        return false;
      }
    });
  }

  /**
   * Closes the connection as closing the editor does: the remote relay's token and the resume point
   * stay, so restoreRemote() (the next activation) resumes where forwarding stopped.
   */
  async closeConnection(): Promise<void> {
    await this.serial(async () => {
      const remote = this.remote;
      await this.detach();
      if (remote) this.remote = remote;
      this.setPhase(remote ? 'offline' : 'stopped', remote ? `Not connected to ${remote.label}.` : undefined);
    });
  }

  /** Disconnect from Relay: closes the connection and forgets the token (the resume point stays); then a local relay on the port is attached again. */
  async disconnectRemote(): Promise<boolean> {
    const address = await this.serial(async () => {
      const address = this.remote?.httpUrl ?? this.remembered.remembered()?.address;
      await this.detach();
      await this.remembered.forget(address);
      this.setPhase('stopped');
      return address;
    });
    await this.probe({ force: true }); // the demo's relay still runs on the port: the view shows it again
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

  replay(seq: number, to?: string, opts: { resignSecret?: string } = {}): Promise<ReplayResponse> {
    return this.api().replay(seq, { ...(to ? { to } : {}), ...opts });
  }

  /** Replay Delivery: to the app that forwards the delivery's channel, else the relay's own targets (RelayActions.replayDelivery). */
  replayDelivery(seq: number, opts: { resignSecret?: string } = {}): Promise<{ to?: string; response: ReplayResponse }> {
    return this.actions.replayDelivery(seq, opts);
  }

  /** Retry pending now: the relay's pending forwards and the editor's own (RelayActions.retryPending). */
  retryPending(filter: { channel?: string } = {}): Promise<{ queued: number; editor: boolean }> {
    return this.actions.retryPending(filter);
  }

  dispose(): void {
    this.forwarder?.stop();
    void this.conn?.close();
    this.process.dispose();
    this.statusBar.dispose();
    this.changed.dispose();
  }
}
