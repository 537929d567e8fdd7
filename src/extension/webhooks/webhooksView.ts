// The Webhooks view's wiring: the tree view itself, the live refresh (visibility, the interval
// setting, the relay's live deliveries) and what invalidates it (token, base URL, repositories).
import * as vscode from 'vscode';
import type { WebhookTreeNode } from '../../core/tree';
import { settings } from '../config';
import { SETTINGS, VIEWS } from '../ids';
import type { Services } from '../services';
import type { WebhooksTree } from './webhooksTree';

export function registerWebhooksView(context: vscode.ExtensionContext, webhooks: WebhooksTree, services: Services): vscode.TreeView<WebhookTreeNode> {
  const view = vscode.window.createTreeView(VIEWS.webhooks, { treeDataProvider: webhooks, showCollapseAll: true, canSelectMany: true });
  const relay = services.relay;
  let relayTimer: ReturnType<typeof setTimeout> | undefined;
  context.subscriptions.push(
    view,
    webhooks.attach(view),
    services.tokens.onDidChange(() => {
      services.invalidate();
      webhooks.refresh();
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SETTINGS.baseUrl) || e.affectsConfiguration(SETTINGS.repositories)) {
        services.invalidate();
        webhooks.refresh();
      }
      if (e.affectsConfiguration(SETTINGS.refreshInterval)) webhooks.loop.setInterval(settings().refreshInterval);
    }),
    // A delivery reached the relay: refresh at once the expanded webhooks that point at it.
    relay.onDidChange(() => {
      if (relayTimer || !view.visible || !webhooks.expandedHooks().some((h) => relay.channelOf(h.url) !== undefined)) return;
      relayTimer = setTimeout(() => {
        relayTimer = undefined;
        void webhooks.loop.runNow();
      }, 250); // the service records its attempt after the relay answered: let it land
    }),
    { dispose: () => clearTimeout(relayTimer) },
  );
  return view;
}
