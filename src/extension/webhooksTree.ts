// The Webhooks view: repository → webhook → "Deliveries N · ✓ N · ✗ N" → recent deliveries.
// Every network read is cached; getChildren only fetches what is not cached yet. While the view is
// visible, a timer (serviceHooks.refreshInterval) re-reads the deliveries of expanded webhooks and
// the webhooks of every listed repository, and repaints only the rows that changed. A refresh that
// cannot reach the service says so at once in the view's message and marks the rows shown as stale
// (what they show is from before the outage); the next good refresh clears both, rows and
// expansion kept.
import * as vscode from 'vscode';
import {
  DEFAULT_PAGE_SIZE,
  RefreshLoop,
  deliveryChildren,
  repoKey,
  sentence,
  toSecond,
  webhookRow,
  webhooksByChannel,
  type DeliveryView,
  type MessageNode,
  type RepoRef,
  type TickResult,
  type Timers,
  type WebhookTreeNode,
  type WebhookView,
} from '../core/tree';
import { settings } from './config';
import { deliveriesFingerprint, loadDeliveryPage, loadFirstPage, type DeliveryState } from './deliveryState';
import { errorKind, shortMessage } from './errors';
import { CONTEXT } from './ids';
import { log } from './log';
import { configProblemRow, problemRow } from './problemRows';
import type { Services } from './services';
import { toTreeItem } from './treeItem';

type RepoNode = Extract<WebhookTreeNode, { kind: 'repository' }>;
type HookNode = Extract<WebhookTreeNode, { kind: 'webhook' }>;
type DeliveriesNode = Extract<WebhookTreeNode, { kind: 'deliveries' }>;
type HooksResult = { ok: true; hooks: WebhookView[] } | { ok: false; row: MessageNode; error: unknown };

export class WebhooksTree implements vscode.TreeDataProvider<WebhookTreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<WebhookTreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private hooks = new Map<string, Promise<HooksResult>>();
  private deliveries = new Map<string, Promise<DeliveryState>>();
  private readonly loadingMore = new Map<string, Promise<number>>();
  // Stable node objects: VS Code matches a fired element by identity, and getParent must return
  // the same objects getChildren gave.
  private readonly repoNodes = new Map<string, RepoNode>();
  private readonly hookNodes = new Map<string, HookNode>();
  private readonly deliveriesNodes = new Map<string, DeliveriesNode>();
  private readonly parents = new WeakMap<WebhookTreeNode, WebhookTreeNode>();
  /** webhook ids whose children are shown (their row is expanded) */
  private readonly expanded = new Set<string>();
  readonly loop: RefreshLoop;
  pageSize = DEFAULT_PAGE_SIZE;
  private view: vscode.TreeView<WebhookTreeNode> | undefined;
  /** Set while automatic refreshes fail: when the rows shown were last refreshed, and why not since. */
  private outage: { since: string; message: string } | undefined;
  private lastGood = new Date().toISOString();

  constructor(
    private readonly services: Services,
    private readonly extensionUri: vscode.Uri,
    timers?: Timers,
  ) {
    // No growing back-off: the view must recover within one interval of the service coming back.
    this.loop = new RefreshLoop(() => this.tick(), settings().refreshInterval, timers, 0);
  }

  /** Follows the view's visibility (the timer runs only while it shows) and its expanded rows. */
  attach(view: vscode.TreeView<WebhookTreeNode>): vscode.Disposable {
    this.view = view;
    this.loop.setVisible(view.visible);
    return vscode.Disposable.from(
      view.onDidChangeVisibility((e) => this.loop.setVisible(e.visible)),
      view.onDidCollapseElement((e) => {
        if (e.element.kind === 'webhook') this.expanded.delete(e.element.webhook.id);
      }),
    );
  }

  /** The webhooks whose rows are expanded (their deliveries are kept fresh). */
  expandedHooks(): WebhookView[] {
    return [...this.hookNodes.values()].filter((n) => this.expanded.has(n.webhook.id)).map((n) => n.webhook);
  }

  /** The outage the view shows (undefined: the last refresh reached the service). */
  get staleSince(): string | undefined {
    return this.outage?.since;
  }

  refresh(): void {
    this.hooks.clear();
    this.deliveries.clear();
    this.repoNodes.clear();
    this.hookNodes.clear();
    this.deliveriesNodes.clear();
    this.changed.fire(undefined);
  }

  /** Drops one webhook's cached deliveries (after ping/retry) and repaints its rows. */
  refreshDeliveries(webhookId: string): void {
    this.deliveries.delete(webhookId);
    const node = [...this.hookNodes.values()].find((n) => n.webhook.id === webhookId);
    this.changed.fire(node);
  }

  getTreeItem(node: WebhookTreeNode): vscode.TreeItem {
    const item = toTreeItem(webhookRow(node), this.extensionUri);
    if (this.outage && (node.kind === 'webhook' || node.kind === 'deliveries' || node.kind === 'delivery')) {
      item.description = `${item.description ? `${item.description} · ` : ''}stale`;
      item.tooltip = `${typeof item.tooltip === 'string' ? `${item.tooltip}\n\n` : ''}Stale: not refreshed since ${toSecond(this.outage.since)} UTC (${this.outage.message}).`;
    }
    return item;
  }

  getParent(node: WebhookTreeNode): WebhookTreeNode | undefined {
    switch (node.kind) {
      case 'repository':
        return undefined;
      case 'webhook':
        return this.repoNodes.get(repoKey(node.repo));
      case 'deliveries':
        return this.hookNodes.get(hookKey(node.repo, node.webhook.id));
      case 'delivery':
      case 'loadMore':
        return this.deliveriesNodes.get(node.webhook.id);
      case 'message':
        return this.parents.get(node);
    }
  }

  async getChildren(node?: WebhookTreeNode): Promise<WebhookTreeNode[]> {
    if (!node) return this.roots();
    const children = await this.childrenOf(node);
    for (const c of children) this.parents.set(c, node);
    return children;
  }

  private async childrenOf(node: WebhookTreeNode): Promise<WebhookTreeNode[]> {
    switch (node.kind) {
      case 'repository': {
        const r = await this.webhooksOf(node.repo);
        if (!r.ok) return [r.row];
        return r.hooks.map((webhook) => this.hookNode(node.repo, webhook));
      }
      case 'webhook':
        this.expanded.add(node.webhook.id);
        try {
          const st = await this.deliveryState(node.webhook);
          const out: WebhookTreeNode[] = [this.deliveriesNode(node.repo, node.webhook, st)];
          if (st.note)
            out.push({ kind: 'message', id: `note:${node.webhook.id}`, text: st.note, severity: 'info', ...(st.noteAction ? { action: st.noteAction } : {}) });
          return out;
        } catch (err) {
          this.deliveries.delete(node.webhook.id);
          return [problemRow(`derr:${node.webhook.id}`, err)];
        }
      case 'deliveries': {
        const st = await this.deliveryState(node.webhook);
        return deliveryChildren(node.repo, node.webhook, st.list.items, st.list.total, st.source, st.list.hasMore, this.heldByRelay(st));
      }
      default:
        return [];
    }
  }

  private async roots(): Promise<WebhookTreeNode[]> {
    // Restricted Mode: no token is read or sent; the view's welcome says why (package.json viewsWelcome).
    if (!vscode.workspace.isTrusted) return [];
    const problem = configProblemRow();
    if (problem) return [problem]; // a malformed base URL: say so, instead of "No repository found"
    const token = await this.services.currentToken();
    await setContext(CONTEXT.signedIn, !!token);
    if (!token) return [];
    const repos = await this.services.repositories();
    await setContext(CONTEXT.hasRepository, repos.length > 0);
    if (repos.length === 0) return [];
    const results = await Promise.all(repos.map((r) => this.webhooksOf(r)));
    const any = results.some((r) => !r.ok || r.hooks.length > 0);
    await setContext(CONTEXT.hasWebhooks, any);
    if (!any) return [];
    return repos.map((repo) => this.repoNode(repo));
  }

  private repoNode(repo: RepoRef): RepoNode {
    const key = repoKey(repo);
    let n = this.repoNodes.get(key);
    if (!n) this.repoNodes.set(key, (n = { kind: 'repository', repo }));
    return n;
  }

  private hookNode(repo: RepoRef, webhook: WebhookView): HookNode {
    const key = hookKey(repo, webhook.id);
    let n = this.hookNodes.get(key);
    if (!n) this.hookNodes.set(key, (n = { kind: 'webhook', repo, webhook }));
    n.webhook = webhook;
    return n;
  }

  private deliveriesNode(repo: RepoRef, webhook: WebhookView, st: DeliveryState): DeliveriesNode {
    let n = this.deliveriesNodes.get(webhook.id);
    if (!n) this.deliveriesNodes.set(webhook.id, (n = { kind: 'deliveries', repo, webhook, counts: st.counts, source: st.source }));
    n.counts = st.counts;
    n.source = st.source;
    n.detail = st.detail;
    return n;
  }

  /** Which deliveries the connected relay's journal holds (Replay is offered only on those). */
  private heldByRelay(st: DeliveryState): (d: DeliveryView) => boolean {
    const relay = this.services.relay;
    if (!relay.connected) return () => false;
    if (st.source === 'relay') return (d) => d.seq !== undefined;
    const ids = new Set(relay.live.newestFirst().flatMap((r) => (r.deliveryId ? [r.deliveryId] : [])));
    return (d) => ids.has(d.id);
  }

  /** Cached webhook list of a repository; failures become a message row that acts (Sign In, Retry). */
  webhooksOf(repo: RepoRef): Promise<HooksResult> {
    const key = repoKey(repo);
    let p = this.hooks.get(key);
    if (!p) {
      p = (async (): Promise<HooksResult> => {
        try {
          const client = await this.services.client();
          return { ok: true, hooks: await client.listWebhooks(repo) };
        } catch (err) {
          const kind = errorKind(err);
          if (kind === 'network' || kind === 'internal') log().error(`listing webhooks of ${key}: ${(err as Error).stack ?? err}`);
          else log().info(`listing webhooks of ${key}: ${shortMessage(err, kind)}`);
          return { ok: false, row: problemRow(`err:${key}`, err), error: err };
        }
      })();
      this.hooks.set(key, p);
    }
    return p;
  }

  /** All webhooks of the listed repositories (cached), plus the errors of repositories that failed to list. */
  async cachedWebhooks(): Promise<{ hooks: { repo: RepoRef; webhook: WebhookView }[]; errors: unknown[] }> {
    const repos = await this.services.repositories();
    const hooks: { repo: RepoRef; webhook: WebhookView }[] = [];
    const errors: unknown[] = [];
    for (const repo of repos) {
      const r = await this.webhooksOf(repo);
      if (r.ok) hooks.push(...r.hooks.map((webhook) => ({ repo, webhook })));
      else errors.push(r.error);
    }
    return { hooks, errors };
  }

  deliveryState(webhook: WebhookView): Promise<DeliveryState> {
    let p = this.deliveries.get(webhook.id);
    if (!p) {
      p = loadFirstPage(this.services, webhook, this.pageSize, (ch) => this.sharesChannel(ch));
      this.deliveries.set(webhook.id, p);
      p.catch(() => this.deliveries.delete(webhook.id));
    }
    return p;
  }

  /** Whether other listed webhooks point at the same channel of the relay in use. */
  private async sharesChannel(channel: string): Promise<boolean> {
    const { hooks } = await this.cachedWebhooks();
    return (
      (webhooksByChannel(
        hooks.map((h) => h.webhook),
        this.services.relay.urls(),
      ).get(channel)?.length ?? 0) > 1
    );
  }

  /**
   * One refresh: every listed repository's webhooks are listed again (a failed listing recovers by
   * itself, a new or changed webhook shows), and the first page of every expanded webhook's
   * deliveries is read again; a row is repainted only when what it shows changed. A failure with
   * rows shown keeps them, marked stale, and says so in the view's message.
   */
  async tick(): Promise<TickResult> {
    const errors: unknown[] = [];
    for (const key of [...this.hooks.keys()]) {
      const err = await this.relist(key);
      if (err !== undefined) errors.push(err);
    }
    for (const node of [...this.hookNodes.values()].filter((n) => this.expanded.has(n.webhook.id))) {
      const err = await this.refreshWebhook(node);
      if (err !== undefined) errors.push(err);
    }
    this.setOutage(errors[0]);
    return { ok: errors.length === 0 };
  }

  /** Lists one repository's webhooks again; returns the error when that failed. */
  private async relist(key: string): Promise<unknown> {
    const before = await this.hooks.get(key)!;
    const repo = this.repoNodes.get(key)?.repo ?? parseKey(key);
    if (!before.ok) {
      this.hooks.delete(key);
      const after = await this.webhooksOf(repo);
      if (after.ok || errorKind(after.error) !== errorKind(before.error)) this.changed.fire(this.repoNodes.get(key));
      return after.ok ? undefined : after.error;
    }
    try {
      const hooks = await (await this.services.client()).listWebhooks(repo);
      if (JSON.stringify(hooks) !== JSON.stringify(before.hooks)) {
        this.hooks.set(key, Promise.resolve({ ok: true, hooks }));
        this.changed.fire(this.repoNodes.get(key));
      }
      return undefined;
    } catch (err) {
      log().warn(`refreshing the webhooks of ${key}: ${shortMessage(err)}`);
      return err;
    }
  }

  /** Shows (or clears) an outage: the view's message and the stale mark on the rows shown. */
  private setOutage(err: unknown): void {
    if (err === undefined) {
      this.lastGood = new Date().toISOString();
      if (!this.outage) return;
      this.outage = undefined;
      if (this.view) this.view.message = undefined;
      this.repaintWebhooks(); // the stale marks go; cached rows, expansion kept
      return;
    }
    const message = sentence(shortMessage(err));
    const first = !this.outage;
    this.outage = { since: this.outage?.since ?? this.lastGood, message };
    if (this.view)
      this.view.message = `${message} Rows marked stale are from ${toSecond(this.outage.since)} UTC; retrying every ${settings().refreshInterval} s.`;
    if (first) this.repaintWebhooks();
  }

  /** Repaints each webhook row and what is under it (from the cache), no more: the stale marks change. */
  private repaintWebhooks(): void {
    for (const n of this.hookNodes.values()) this.changed.fire(n);
  }

  /** Reads an expanded webhook's first page again; returns the error when that failed. */
  private async refreshWebhook(node: HookNode): Promise<unknown> {
    const cached = this.deliveries.get(node.webhook.id);
    const before = cached ? await cached.catch(() => undefined) : undefined;
    let fresh: DeliveryState;
    try {
      fresh = await loadFirstPage(
        this.services,
        node.webhook,
        this.pageSize,
        (ch) => this.sharesChannel(ch),
        before?.source === 'relay' && before.list.total > 0,
      );
    } catch (err) {
      if (before) log().warn(`refreshing deliveries of ${node.webhook.id}: ${shortMessage(err)}`);
      else this.changed.fire(node); // its error row may read differently now
      return err;
    }
    if (before && deliveriesFingerprint(before, fresh.list.items.length) === deliveriesFingerprint(fresh)) return undefined;
    this.deliveries.set(node.webhook.id, Promise.resolve(fresh));
    const rows = this.deliveriesNodes.get(node.webhook.id);
    // The counts row and its deliveries; the webhook row when the row under it appears or goes.
    if (rows && before && before.note === fresh.note) {
      rows.counts = fresh.counts;
      rows.source = fresh.source;
      rows.detail = fresh.detail;
      this.changed.fire(rows);
    } else {
      this.changed.fire(node);
    }
    return undefined;
  }

  /**
   * "Load more…": appends the next page to a webhook's deliveries. Runs one at a time per webhook:
   * two quick clicks would otherwise both request the same offset.
   */
  loadMore(webhook: WebhookView): Promise<number> {
    const previous = this.loadingMore.get(webhook.id) ?? Promise.resolve(0);
    const next = previous.catch(() => 0).then(() => this.loadNextPage(webhook));
    this.loadingMore.set(webhook.id, next);
    const done = () => {
      if (this.loadingMore.get(webhook.id) === next) this.loadingMore.delete(webhook.id);
    };
    next.then(done, done);
    return next;
  }

  private async loadNextPage(webhook: WebhookView): Promise<number> {
    const st = await this.deliveryState(webhook);
    if (!st.list.hasMore) return st.list.items.length;
    await loadDeliveryPage(this.services, webhook, st, this.pageSize);
    const rows = this.deliveriesNodes.get(webhook.id);
    if (rows) rows.counts = st.counts;
    this.changed.fire(rows);
    return st.list.items.length;
  }

  dispose(): void {
    this.loop.dispose();
    this.changed.dispose();
  }
}

function hookKey(repo: RepoRef, id: string): string {
  return `${repoKey(repo)}:${id}`;
}

function parseKey(key: string): RepoRef {
  const [owner = '', repo = ''] = key.split('/');
  return { owner, repo };
}

function setContext(key: string, value: unknown): Thenable<unknown> {
  return vscode.commands.executeCommand('setContext', key, value);
}
