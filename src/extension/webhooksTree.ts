// The Webhooks view: repository → webhook → "Deliveries N · ✓ N · ✗ N" → recent deliveries.
// Every network read is cached; getChildren only fetches what is not cached yet.
import * as vscode from 'vscode';
import {
  DEFAULT_PAGE_SIZE,
  PagedList,
  countDeliveries,
  deliveryChildren,
  relayChannelOfUrl,
  relayToDelivery,
  repoKey,
  webhookRow,
  type DeliveryCounts,
  type DeliverySource,
  type DeliveryView,
  type RepoRef,
  type WebhookTreeNode,
  type WebhookView,
} from '../core/tree';
import { settings } from './config';
import { CONTEXT } from './ids';
import { log } from './log';
import type { Services } from './services';
import { toTreeItem } from './treeItem';
import { classify, shortMessage } from './errors';

interface DeliveryState {
  source: DeliverySource;
  counts: DeliveryCounts;
  list: PagedList<DeliveryView>;
  /** relay-sourced lists are held whole in memory and paged locally */
  all?: DeliveryView[];
  note?: string;
}

type HooksResult = { ok: true; hooks: WebhookView[] } | { ok: false; message: string; detail: string; error: unknown };

export class WebhooksTree implements vscode.TreeDataProvider<WebhookTreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<WebhookTreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private hooks = new Map<string, Promise<HooksResult>>();
  private deliveries = new Map<string, Promise<DeliveryState>>();
  private readonly loadingMore = new Map<string, Promise<number>>();
  pageSize = DEFAULT_PAGE_SIZE;

  constructor(
    private readonly services: Services,
    private readonly extensionUri: vscode.Uri,
  ) {}

  refresh(): void {
    this.hooks.clear();
    this.deliveries.clear();
    this.changed.fire(undefined);
  }

  /** Drops one webhook's cached deliveries (after ping/retry) and repaints. */
  refreshDeliveries(webhookId: string): void {
    this.deliveries.delete(webhookId);
    this.changed.fire(undefined);
  }

  getTreeItem(node: WebhookTreeNode): vscode.TreeItem {
    return toTreeItem(webhookRow(node), this.extensionUri);
  }

  async getChildren(node?: WebhookTreeNode): Promise<WebhookTreeNode[]> {
    if (!node) return this.roots();
    switch (node.kind) {
      case 'repository': {
        const r = await this.webhooksOf(node.repo);
        if (!r.ok) return [{ kind: 'message', id: `err:${repoKey(node.repo)}`, text: r.message, detail: r.detail, severity: 'error' }];
        return r.hooks.map((webhook) => ({ kind: 'webhook', repo: node.repo, webhook }));
      }
      case 'webhook': {
        try {
          const st = await this.deliveryState(node.webhook);
          const out: WebhookTreeNode[] = [{ kind: 'deliveries', repo: node.repo, webhook: node.webhook, counts: st.counts, source: st.source }];
          if (st.note) out.push({ kind: 'message', id: `note:${node.webhook.id}`, text: st.note, severity: 'info' });
          return out;
        } catch (err) {
          this.deliveries.delete(node.webhook.id);
          return [{ kind: 'message', id: `derr:${node.webhook.id}`, text: shortMessage(err, classify(err)), detail: String(err), severity: 'error' }];
        }
      }
      case 'deliveries': {
        const st = await this.deliveryState(node.webhook);
        return deliveryChildren(node.repo, node.webhook, st.list.items, st.list.total, st.source, st.list.hasMore);
      }
      default:
        return [];
    }
  }

  private async roots(): Promise<WebhookTreeNode[]> {
    const token = await this.services.tokens.get();
    await setContext(CONTEXT.signedIn, !!token);
    if (!token) return [];
    const repos = await this.services.repositories();
    await setContext(CONTEXT.hasRepository, repos.length > 0);
    if (repos.length === 0) return [];
    const results = await Promise.all(repos.map((r) => this.webhooksOf(r)));
    const any = results.some((r) => !r.ok || r.hooks.length > 0);
    await setContext(CONTEXT.hasWebhooks, any);
    if (!any) return [];
    return repos.map((repo) => ({ kind: 'repository', repo }));
  }

  /** Cached webhook list of a repository; failures become a message row (and are retried on Refresh). */
  webhooksOf(repo: RepoRef): Promise<HooksResult> {
    const key = repoKey(repo);
    let p = this.hooks.get(key);
    if (!p) {
      p = (async (): Promise<HooksResult> => {
        try {
          const client = await this.services.client();
          return { ok: true, hooks: await client.listWebhooks(repo) };
        } catch (err) {
          const kind = classify(err);
          log().error(`listing webhooks of ${key}: ${(err as Error).stack ?? err}`);
          return { ok: false, message: shortMessage(err, kind), detail: String((err as Error).message ?? err), error: err };
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
      p = this.loadFirstPage(webhook);
      this.deliveries.set(webhook.id, p);
      p.catch(() => this.deliveries.delete(webhook.id));
    }
    return p;
  }

  private async loadFirstPage(webhook: WebhookView): Promise<DeliveryState> {
    const client = await this.services.client();
    const page = await client.listDeliveries(webhook.id, { limit: this.pageSize, offset: 0 });
    if (page.offered) {
      const list = newList(page.total);
      list.append(page.deliveries, page.total);
      return { source: 'service', counts: { total: page.total, successful: page.successful, failed: page.failed }, list };
    }
    // The service offers no deliveries endpoint: show what reached the relay for this webhook.
    const relay = this.services.relay;
    const channel = relayChannelOfUrl(webhook.url, relay.port ?? settings().relayPort);
    if (!channel || !relay.connected) {
      const list = newList(0);
      const note = !channel
        ? 'The service does not list deliveries, and this webhook does not point at the relay.'
        : 'The service does not list deliveries; start the relay to see the ones it receives.';
      return { source: 'relay', counts: { total: 0, successful: 0, failed: 0 }, list, note };
    }
    const { deliveries } = await relay.listDeliveries({ channel, limit: 1000 });
    const all = deliveries.sort((a, b) => b.seq - a.seq).map(relayToDelivery);
    const list = newList(all.length);
    list.append(all.slice(0, this.pageSize), all.length);
    return { source: 'relay', counts: countDeliveries(all), list, all };
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
    if (st.all) {
      st.list.append(st.all.slice(st.list.nextOffset, st.list.nextOffset + this.pageSize), st.all.length);
    } else {
      const client = await this.services.client();
      const page = await client.listDeliveries(webhook.id, { limit: this.pageSize, offset: st.list.nextOffset });
      if (page.offered) {
        st.list.append(page.deliveries, page.total);
        st.counts = { total: page.total, successful: page.successful, failed: page.failed };
      }
    }
    this.changed.fire(undefined);
    return st.list.items.length;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** A delivery list that drops a row already loaded (tree ids must be unique): relay rows by seq, service rows by id. */
function newList(total: number): PagedList<DeliveryView> {
  return new PagedList<DeliveryView>(total, (d) => (d.seq !== undefined ? `#${d.seq}` : d.id));
}

function setContext(key: string, value: unknown): Thenable<unknown> {
  return vscode.commands.executeCommand('setContext', key, value);
}
