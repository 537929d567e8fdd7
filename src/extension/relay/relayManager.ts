// The relay as the editor sees it: at most one connection (a local relay on the configured port,
// started here or found there, or a remote relay from "Connect to Relay…"), the process Start Relay
// runs, and the status bar item. Its state (off, starting, connecting, connected, reconnecting,
// failed; local or remote; whether this window forwards) has one owner, the ConnectionMachine of
// src/core/connection/machine.ts, held by connectionOwner.ts with the connection in use; the Relay
// view (relayTree.ts), the status bar, the context keys and the refusal notice subscribe to it.
// The parts live beside this file: remoteRelay.ts (Connect to Relay…), process.ts (spawn/stop),
// localRelay.ts (Start Relay's process on a port, the token of a relay found there), opener.ts (a
// connection with its forwarder), connection.ts (RelayApi, subscription, live list), forwarding.ts
// (the relay → local app engine), setups.ts (forward set-ups, their secrets and targets),
// remoteMemory.ts (the remote relay remembered), relaySecrets.ts (the signing secrets the editor
// holds), relayUrls.ts (ingress URLs), relayActions.ts (Replay Delivery, Retry pending now),
// lease.ts (one forwarding host), statusBar.ts; inUse.ts is what they read of the relay in use.
// Forwarding follows the forward set-ups of the relay in use (local or remote) and nothing else:
// the admin token never sends every channel to one app.
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { DeliveryList, DeliveryListQuery, RelayDelivery, RelayStatus, ReplayResponse } from '../../../relay/client';
import { shownDetail, shownState, type ConnectionMachine } from '../../core/connection/machine';
import {
  forwardTargets,
  parseRelayAddress,
  relayChannelFor,
  RelayLiveList,
  type ForwardSession,
  type RelayAddress,
  type RelayState,
  type RelayUrls,
  type WebhookUrlChoice,
} from '../../core/tree';
import { settings } from '../config';
import { loadRelayClient } from '../deps';
import { UserError } from '../errors';
import { COMMANDS } from '../ids';
import { log } from '../log';
import type { RelayConnection, TokenScope } from './connection';
import { localBase, type RelayInUse } from './inUse';
import { LocalRelay } from './localRelay';
import { ConnectionOwner } from './connectionOwner';
import { RemoteMemory } from './remoteMemory';
import { RemoteRelay } from './remoteRelay';
import { RelayActions } from './relayActions';
import { lastLines, RelayProcess, RelayStartError } from './process';
import { RelaySecrets, type GeneratedSecret, type HeldSecret } from './relaySecrets';
import { ingressUrlOf, ingressUrlsOf, payloadUrlChoices } from './relayUrls';
import { ForwardSetups } from './setups';
import { RelayStatusBar, setRelayContext } from './statusBar';
import type { SerialState } from '../storage/serialState';

export type RelayDeliveryDetail = RelayDelivery;

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
  /** The connection in use and its state machine. */
  readonly owner: ConnectionOwner;
  private probed = false;
  private busy = false;
  /** restore() in progress: probe() waits for it (a remembered connection comes first). */
  private restoring: Promise<void> | undefined;
  private readonly process = new RelayProcess();
  private readonly statusBar = new RelayStatusBar();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  /** The relay in use as the collaborators read it (live, so always current). */
  private get inUse(): RelayInUse {
    return this.owner;
  }
  private readonly secrets: RelaySecrets;
  private readonly local: LocalRelay;
  /** Connect to Relay…'s remote relay. */
  private readonly remoteRelay: RemoteRelay;
  private readonly actions: RelayActions;

  constructor(o: RelayManagerOptions) {
    this.dataDir = o.dataDir;
    this.setups = new ForwardSetups(o.globalState, o.secrets, () => settings().relayForwardUrl || undefined);
    this.owner = new ConnectionOwner({
      setups: this.setups,
      globalState: o.globalState,
      leaseFile: join(dirname(o.dataDir), 'forward-owner.json'),
      ownsProcess: () => this.process.running,
    });
    this.owner.onRowsChanged(() => this.changed.fire());
    this.secrets = new RelaySecrets(this.inUse, this.setups, o.secrets, (url) => this.channelOf(url));
    this.remoteRelay = new RemoteRelay(this.owner, new RemoteMemory(o.globalState, o.secrets), () => this.process.running);
    this.actions = new RelayActions({
      connection: () => this.api(),
      targetFor: (channel, event) => this.targetFor(channel, undefined, undefined, event),
      forwarder: () => this.owner.forwarder,
      sessions: () => this.sessions(),
    });
    this.local = new LocalRelay(this.process, { extensionPath: o.extensionPath, dataDir: o.dataDir, localSecret: () => this.localSecret() });
    this.process.onExit((code, output) => {
      const detail = `Relay exited with code ${code}. ${lastLines(output)}`;
      void this.owner.detach(code === 0 || code === null ? { type: 'close', detail } : { type: 'fail', detail });
    });
    // The status bar and the commands' context keys follow the state; so do the views (onDidChange).
    this.machine.onDidChange(() => {
      setRelayContext(this.state, this.owner.remote !== undefined);
      this.showStatusBar();
      this.changed.fire();
    });
  }

  /** The connection's state (its one owner). */
  get machine(): ConnectionMachine {
    return this.owner.machine;
  }

  /** A connection change is queued or running (whenConnected.ts waits it out). */
  get changing(): boolean {
    return this.owner.changing;
  }

  /** Resolves once the connection changes queued now have run. */
  settled(): Promise<void> {
    return this.owner.settled();
  }

  /** Told when the relay refuses the token in use (the machine's `refused` event). */
  onRefused(listener: RefusedListener): { dispose(): void } {
    return this.machine.onDidChange(({ event }) => {
      if (event.type === 'refused') listener(event.label, event.status);
    });
  }

  get state(): RelayState {
    return shownState(this.machine.snapshot);
  }
  get detail(): string | undefined {
    return shownDetail(this.machine.snapshot);
  }
  /** Port of the local relay in use (undefined for a remote relay or none). */
  get port(): number | undefined {
    return this.owner.remote ? undefined : this.owner.localPort;
  }
  /** The remote relay's label (relay.example.com) when connected through "Connect to Relay…". */
  get remoteLabel(): string | undefined {
    return this.owner.remote?.label;
  }
  /** The base URL of the relay in use (remote, or http://127.0.0.1:<port>): forward set-ups are kept under it. */
  get relayBase(): string | undefined {
    return this.owner.base;
  }
  /** What the token in use may do: admin, or one channel (undefined: not connected). */
  get scope(): TokenScope | undefined {
    return this.owner.conn ? this.owner.tokenScope : undefined;
  }
  get status(): RelayStatus | undefined {
    return this.owner.status;
  }
  get live(): RelayLiveList {
    return this.owner.live;
  }
  get connected(): boolean {
    return this.owner.conn !== undefined && this.machine.snapshot.phase === 'connected';
  }
  get ownsProcess(): boolean {
    return this.process.running;
  }
  /** The connection in use (tests read its counters). */
  get connection(): RelayConnection | undefined {
    return this.owner.conn;
  }
  /** The apps deliveries of the relay in use are forwarded to: the forward set-ups', and the setting's for a channel token's channel. */
  get forwardTargets(): string[] {
    if (!this.relayBase) return [];
    return forwardTargets(this.sessions(), this.owner.tokenScope?.kind === 'channel' ? settings().relayForwardUrl || undefined : undefined);
  }
  /** Where deliveries are forwarded (the first of forwardTargets). */
  get forwardTo(): string | undefined {
    return this.forwardTargets[0];
  }

  /** The app a delivery of `channel` (and `event`) goes to: its set-up's (routes, filter), or (a channel token's own channel) the forward URL setting. */
  targetFor(channel: string, relay = this.relayBase, scope = this.owner.tokenScope, event?: string): string | undefined {
    return this.setups.target(channel, relay, scope, event);
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
      remote: this.owner.remote?.label,
      forwardTo: targets[0],
      otherTargets: Math.max(0, targets.length - 1),
      detail: this.detail,
      ownsProcess: this.ownsProcess,
      forwardFailing: this.machine.snapshot.forwardProblem !== undefined,
    });
  }

  /** Uses the local relay listening on `port` with `token` (its admin token). */
  attach(port: number, token: string): Promise<void> {
    return this.owner.serial(() => this.attachNow(port, token));
  }

  private async attachNow(port: number, token: string): Promise<void> {
    const address = parseRelayAddress(localBase(port));
    if ('problem' in address) throw new UserError(address.problem);
    await this.owner.openRelay(address, token, { kind: 'local', port });
  }

  /**
   * Attaches to a relay already listening on the configured port, when its token is the one in this
   * editor's data folder (a relay started by another window or session). `force`: probe again even
   * if done; a changed port setting drops the rows of the relay on the old port first.
   */
  probe(options: { force?: boolean } = {}): Promise<void> {
    if ((this.probed && !options.force) || this.busy || this.restoring) return Promise.resolve();
    this.probed = true;
    return this.owner.serial(() => this.probeNow());
  }

  private async probeNow(): Promise<void> {
    if (this.process.running || this.owner.remote) return;
    const port = settings().relayPort;
    if (this.owner.conn && this.owner.localPort === port) return;
    if (this.owner.conn) await this.owner.detach({ type: 'close' });
    if (!port) return;
    const client = await loadRelayClient();
    try {
      await new client.RelayApi({ baseUrl: localBase(port), token: '', timeoutMs: 1000 }).health();
    } catch {
      const s = this.machine.snapshot;
      if ((s.phase === 'starting' || (s.phase === 'off' && s.offline)) && !this.owner.conn)
        this.machine.dispatch({ type: 'close', offline: true, detail: `No relay answers on port ${port}.` });
      return;
    }
    try {
      await this.attachNow(port, await this.local.readToken(port));
    } catch (err) {
      log().warn(`relay on port ${port} answers but cannot be used: ${(err as Error).message}`);
      if (!this.owner.conn)
        this.machine.dispatch({
          type: 'close',
          offline: true,
          detail: `A relay answers on port ${port}, but not with the token in ${this.dataDir}: it was not started by this editor. Use "Connect to Relay…" for it, or set serviceHooks.relay.port.`,
        });
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
    return this.owner.serial(() => this.startNow());
  }

  private async startNow(): Promise<'started' | 'attached'> {
    if (this.owner.remote && this.owner.conn)
      throw new UserError(`Connected to ${this.owner.remote.label}. Run "Disconnect from Relay" before starting a local relay.`);
    if (this.process.running) return 'attached';
    const s = settings();
    if (this.owner.conn && this.owner.localPort === s.relayPort && this.connected) return 'attached';
    // A relay of this editor's (the demo's, another window's) already runs on the port: use it.
    if (!this.owner.remote) await this.probeNow();
    if (this.owner.conn && this.owner.localPort === s.relayPort && this.connected) return 'attached';
    this.busy = true;
    try {
      await this.owner.detach({ type: 'close' });
      this.machine.dispatch({ type: 'start' });
      const started = await this.local.spawn(s.relayPort, s.relayForwardUrl);
      await this.attachNow(started.port, started.token);
      return 'started';
    } catch (err) {
      await this.process.stop();
      this.machine.dispatch({ type: 'fail', detail: (err as Error).message });
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
    if (this.owner.remote) return (await this.disconnectRemote()) ? 'disconnected' : 'not-running';
    const was = this.owner.conn !== undefined;
    await this.owner.serial(() => this.owner.detach({ type: 'close' }));
    const stopped = await this.process.stop();
    this.machine.dispatch({ type: 'close' });
    return stopped ? 'stopped' : was ? 'disconnected' : 'not-running';
  }

  /** The address Connect to Relay… offers first: the last one typed (kept after Disconnect). */
  get lastAddress(): string | undefined {
    return this.remoteRelay.lastAddress;
  }

  /** Connect to Relay… (RemoteRelay.connect). */
  connectRemote(input: string, token: string): Promise<void> {
    return this.remoteRelay.connect(input, token);
  }

  /** "Forward Webhooks to Local App" set-ups on the relay in use. */
  sessions(): ForwardSession[] {
    return this.setups.of(this.relayBase);
  }

  /** The API of the relay in use (channels: POST/DELETE /api/channels, with the admin token); explains what is missing otherwise. */
  relayApi(): { api: RelayConnection['api']; relay: RelayAddress; scope: TokenScope } {
    const base = this.relayBase;
    const address = base && parseRelayAddress(base);
    if (!this.owner.conn || !address || 'problem' in address) throw new UserError('Not connected to a relay. Run "Connect to Relay…" or "Start Relay" first.');
    return { api: this.owner.conn.api, relay: this.owner.remote ?? address, scope: this.owner.tokenScope ?? { kind: 'admin' } };
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
      (await this.owner.conn?.api.listDeliveries({ limit: 0 }).then(
        (l) => l.lastSeq,
        () => undefined,
      ));
    if (secret) await this.setups.storeSecret(session.relay, session.channel, secret);
    await this.setups.put({ ...session, ...(head !== undefined ? { since: head } : {}) });
    await this.owner.reopen();
  }

  /** Forgets a forward set-up (its channel is no longer forwarded); returns it. */
  async endSession(channel: string): Promise<ForwardSession | undefined> {
    const relay = this.relayBase;
    if (!relay) return undefined;
    const ended = await this.setups.remove(relay, channel);
    if (ended) await this.owner.reopen();
    return ended;
  }

  /** Reconnects to the remote relay remembered from an earlier session (activation). */
  restoreRemote(): Promise<boolean> {
    return this.remoteRelay.restore();
  }

  /**
   * serviceHooks.relay.forwardUrl changed: the remote relay in use reopens with it (never the one
   * remembered, which during Connect to Relay… is still the relay before); none in use: the
   * remembered one comes back.
   */
  async forwardUrlChanged(): Promise<void> {
    if (this.owner.conn && this.owner.remote) await this.owner.reopen();
    else if (!this.owner.conn) await this.restoreRemote();
  }

  /** Closes the connection as closing the editor does (RemoteRelay.close): the next activation resumes. */
  closeConnection(): Promise<void> {
    return this.remoteRelay.close();
  }

  /** Disconnect from Relay (RemoteRelay.disconnect); then a local relay on the port is attached again. */
  async disconnectRemote(): Promise<boolean> {
    const was = await this.remoteRelay.disconnect();
    await this.probe({ force: true }); // the demo's relay still runs on the port: the view shows it again
    return was;
  }

  // ---- the API of the relay in use ----

  private api(): RelayConnection {
    if (!this.owner.conn) throw new UserError('No relay is connected. Run "Start Relay" or "Connect to Relay…".');
    return this.owner.conn;
  }

  /** Re-reads status and the journal head (Refresh). */
  async reload(): Promise<void> {
    if (!this.owner.conn) return this.probe({ force: true });
    await this.owner.conn.reload();
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
    this.owner.dispose();
    this.process.dispose();
    this.statusBar.dispose();
    this.changed.dispose();
  }
}
